// How far a watcher may fall behind its client before it is ended, as kube's cacher ends a
// watcher whose buffer is full ("Forcing watcher close due to unresponsiveness"); the client
// re-watches from the last resourceVersion it saw, or relists after a 410. Pure bookkeeping:
// the watch endpoint measures, this decides.

/**
 * Bytes pending across all watchers (events queued plus what sockets buffer) before the ones
 * furthest behind are ended. A queued event is counted once per watcher although its text is
 * shared, so this bounds what watchers could hold, not only what they hold.
 */
export const DEFAULT_WATCH_BUDGET_BYTES = 256 * 1024 * 1024;

/**
 * Events one watcher may have queued for its client: kube's cacher gives a watcher without an
 * index channels of at most 100 events (maxWatchChanSizeWithoutIndex, watch_cache.go) and ends it
 * when the next event does not fit.
 */
export const MAX_PENDING_EVENTS = 100;

/** Bytes one watcher may have pending: a hundred large objects must not pin a hundred copies. */
export const MAX_PENDING_BYTES = 16 * 1024 * 1024;

/**
 * How long an ended watcher's client gets to take the rest of its stream before the connection is
 * dropped: a client that does not read would otherwise hold its socket buffers for ever.
 */
export const TERMINATION_GRACE_MS = 5000;

export interface Backlog {
  /** Events queued (those of the initial list, serialised only when sent, are not counted). */
  events: number;
  /** Bytes queued plus bytes the connection buffers. */
  bytes: number;
}

export type TerminationReason = 'events' | 'bytes' | 'budget';

/** Whether one watcher is too far behind on its own, whatever the others do. */
export function overWatcherLimits(
  b: Backlog,
  limits = { events: MAX_PENDING_EVENTS, bytes: MAX_PENDING_BYTES },
): TerminationReason | undefined {
  if (b.events > limits.events) return 'events';
  if (b.bytes > limits.bytes) return 'bytes';
  return undefined;
}

/**
 * The watchers to end, furthest behind (most bytes pending) first, until `total` is within
 * `limit`; among equals the earlier listed goes first. Empty when within the budget.
 */
export function watchersToEnd<W>(pending: Iterable<readonly [W, number]>, total: number, limit: number): W[] {
  if (total <= limit) return [];
  const byBacklog = [...pending].sort((a, b) => b[1] - a[1]);
  const ended: W[] = [];
  for (const [w, bytes] of byBacklog) {
    if (total <= limit) break;
    ended.push(w);
    total -= bytes;
  }
  return ended;
}

/** Every watcher's pending bytes and their sum, against one budget. */
export class WatchBudget<W> {
  private readonly pending = new Map<W, number>();
  private sum = 0;

  constructor(readonly limit: number = DEFAULT_WATCH_BUDGET_BYTES) {}

  get total(): number {
    return this.sum;
  }

  /** Records `w`'s pending bytes; returns the watchers to end to get back within the budget. */
  update(w: W, bytes: number): W[] {
    this.sum += bytes - (this.pending.get(w) ?? 0);
    this.pending.set(w, bytes);
    return watchersToEnd(this.pending, this.sum, this.limit);
  }

  remove(w: W): void {
    this.sum -= this.pending.get(w) ?? 0;
    this.pending.delete(w);
  }
}

/**
 * What /metrics shows of watches; kube's terminated_watchers_total counts by group and resource,
 * its registered_watchers and watch_events_total by the group, version and kind watched.
 */
export class WatchStats {
  /** Bytes pending for all watchers now. */
  pendingBytes = 0;
  private readonly terminated = new Map<string, { group: string; resource: string; count: number }>();
  /** Open watches and events sent to watch clients, by the group, version and kind watched. */
  private readonly watchers = new Map<string, WatchKindCount>();
  private readonly events = new Map<string, WatchKindCount>();

  terminatedWatcher(group: string, resource: string): void {
    const key = `${group}/${resource}`;
    const entry = this.terminated.get(key);
    if (entry) entry.count++;
    else this.terminated.set(key, { group, resource, count: 1 });
  }

  terminatedWatchers(): readonly { group: string; resource: string; count: number }[] {
    return [...this.terminated.values()];
  }

  /** A watch started (kube's apiserver_registered_watchers); the returned function ends it, once. */
  watcherRegistered(gvk: WatchKind): () => void {
    const entry = countFor(this.watchers, gvk);
    entry.count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.count--;
    };
  }

  /** Counts the events sent to watch clients of `gvk` (kube's apiserver_watch_events_total), one per call. */
  watchEventCounter(gvk: WatchKind): () => void {
    const entry = countFor(this.events, gvk);
    return () => void entry.count++;
  }

  registeredWatchers(): readonly WatchKindCount[] {
    return [...this.watchers.values()];
  }

  watchEvents(): readonly WatchKindCount[] {
    return [...this.events.values()];
  }
}

/** The group, version and kind a watch is of (kube's labels on its watch metrics). */
export interface WatchKind {
  group: string;
  version: string;
  kind: string;
}

interface WatchKindCount extends WatchKind {
  count: number;
}

function countFor(counts: Map<string, WatchKindCount>, gvk: WatchKind): WatchKindCount {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let entry = counts.get(key);
  if (!entry) counts.set(key, (entry = { group: gvk.group, version: gvk.version, kind: gvk.kind, count: 0 }));
  return entry;
}

/** The group, version and kind of an apiVersion ("apps/v1", "v1") and kind. */
export function watchKindOf(typeMeta: { apiVersion: string; kind: string }): WatchKind {
  const slash = typeMeta.apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: typeMeta.apiVersion, kind: typeMeta.kind }
    : {
        group: typeMeta.apiVersion.slice(0, slash),
        version: typeMeta.apiVersion.slice(slash + 1),
        kind: typeMeta.kind,
      };
}

/** The process's watch figures, as kube registers its metrics once per process (legacyregistry). */
export const watchStats = new WatchStats();
