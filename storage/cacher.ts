// The watch cache: one storage watch per resource feeds an in-memory copy of its current objects
// and a window of recent events, so lists and watches are served from memory and every value is
// decoded once, however many clients watch it (kube-apiserver's cacher).
//
// Reads stay consistent: a list first asks storage for its current revision (one cheap round
// trip) and waits until the cache has caught up to it, which storage's progress notification
// vouches for when nothing under the prefix changed. Where those notifications are not exact (etcd
// before 3.4.31 and 3.5.13: Storage.watchProgressSupport), the list is read from storage instead.
// A watch from a revision older than the window falls back to a storage watch of its own, so it is
// served whenever storage still has the history, and fails with Compacted only when storage does
// not.
import { compacted, isStorageError, unavailable } from './errors.js';
import type { KeyValue, Storage, WatchEvent, WatchHandle } from './interface.js';

export interface CachedEvent<T> {
  type: WatchEvent['type'];
  key: string;
  /** After the change; for a delete, the last value (at the delete's revision). */
  object: T;
  /** Before the change, for update and delete. */
  previous?: T;
  revision: number;
}

export interface CachedList<T> {
  items: Array<{ key: string; object: T; revision: number }>;
  revision: number;
}

interface CachedWatchCallbacks<T> {
  onEvents(events: CachedEvent<T>[]): void;
  onError(err: Error): void;
}

interface CacherOptions {
  /** Events kept for watches that resume from a recent revision. */
  windowSize?: number;
  /** The most bytes of stored values (each event's value and previous value) the window keeps. */
  windowBytes?: number;
  /** How long a read waits for the cache to reach the revision it needs (kube's blockTimeout, 3 s). */
  freshnessTimeoutMs?: number;
}

/**
 * What the caches over one storage take unless given their own: a server's stores each create
 * their cache lazily, from the storage they are given, so a server's setting travels with its
 * storage (as kube's cacher settings come with its storage config) instead of through every store.
 */
const storageDefaults = new WeakMap<Storage, CacherOptions>();

/** Sets the options every Cacher over `storage` created from now on takes unless given its own. */
export function setCacherDefaults(storage: Storage, opts: CacherOptions): void {
  storageDefaults.set(storage, opts);
}

interface Watcher<T> {
  prefix: string;
  /** The revision it watches from: it is sent only later events. */
  after: number;
  callbacks: CachedWatchCallbacks<T>;
}

const DEFAULT_WINDOW = 10_000;
/**
 * Large objects must not make the window the process's largest allocation: 10,000 events of 10 KB
 * objects, decoded with their previous states, held over half a gigabyte. A watch from a revision
 * the window no longer has is served by storage, so a smaller window costs only a storage watch.
 */
const DEFAULT_WINDOW_BYTES = 32 * 1024 * 1024;
const DEFAULT_FRESHNESS_TIMEOUT_MS = 3_000;
/** Prefixes whose sorted keys are kept at once: a few namespaces' lists, not every namespace's. */
const MAX_SORTED_PREFIXES = 64;
const RESTART_DELAY_MS = 250;

/** Thrown when a read needs a revision the cache has not reached in time (kube's 504). */
export class TooLargeResourceVersion extends Error {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`Too large resource version: ${requested}, current: ${current}`);
  }
}

/**
 * Consistent lists the caches served (kube's apiserver_watch_cache_consistent_read_total, 1.33):
 * by resource (kube's cacher resourcePrefix: the key prefix below /registry, "/configmaps"),
 * success and fallback (served by storage after the cache did not catch up in time). Lists a cache
 * delegated to storage outright are not counted, as in kube. For the whole process, as kube's
 * legacy registry: /metrics reads it at each scrape.
 */
export const consistentReads = new Map<
  string,
  { resource: string; success: boolean; fallback: boolean; count: number }
>();

function countConsistentRead(prefix: string, success: boolean, fallback: boolean): void {
  const resource = prefix.startsWith(REGISTRY) ? prefix.slice(REGISTRY.length - 1, -1) : prefix;
  const key = `${resource}\0${success}\0${fallback}`;
  const series = consistentReads.get(key);
  if (series) series.count++;
  else consistentReads.set(key, { resource, success, fallback, count: 1 });
}

const REGISTRY = '/registry/';

export class Cacher<T> {
  private readonly objects = new Map<string, { object: T; revision: number }>();

  /** How many objects the cache holds now (apiserver_storage_objects). */
  get size(): number {
    return this.objects.size;
  }
  /** Keys by their parent path (`.../<namespace>/`): a namespace's list reads only its own objects. */
  private readonly byParent = new Map<string, Set<string>>();
  /** The keys under each prefix listed since the set of keys last changed, sorted (sortedKeys). */
  private readonly sorted = new Map<string, readonly string[]>();
  private readonly window = new EventWindow<CachedEvent<T>>();
  private readonly watchers = new Set<Watcher<T>>();
  /** Everything up to this revision is reflected in `objects` and `window`. */
  private revision = 0;
  /** A watch from this revision or later can be replayed from the window (the last list, or the newest event trimmed from it). */
  private replayableAfter = 0;
  /** History before this revision is forgotten (expireHistory): a watch from before it is Compacted. */
  private expiredBefore = 0;
  private ready: Promise<void> | undefined;
  private upstream: WatchHandle | undefined;
  private waiters: Array<{ revision: number; resolve: () => void }> = [];
  private stopped = false;
  private readonly windowSize: number;
  private readonly windowBytes: number;
  private readonly freshnessTimeoutMs: number;

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
    /**
     * A stored value decoded; `previous`, the value it replaces as the cache holds it, may lend it
     * what is unchanged. `sameBytes`: `previous` was decoded from this very value (a delete's last
     * state), so only the revision is new and nothing needs parsing again.
     */
    private readonly decode: (kv: KeyValue, previous?: T, sameBytes?: boolean) => T,
    given: CacherOptions = {},
  ) {
    const opts = { ...storageDefaults.get(storage), ...given };
    this.windowSize = opts.windowSize ?? DEFAULT_WINDOW;
    this.windowBytes = opts.windowBytes ?? DEFAULT_WINDOW_BYTES;
    this.freshnessTimeoutMs = opts.freshnessTimeoutMs ?? DEFAULT_FRESHNESS_TIMEOUT_MS;
  }

  /**
   * Every current object under `prefix` (a sub-prefix of the cacher's): consistent with storage,
   * or, with `anyRevision` (resourceVersion "0", or after `waitFresh` for a resourceVersion), whatever
   * the cache holds, without asking storage. A consistent list is served from the cache only where
   * storage's progress notifications are exact, and from storage where they are not or where the
   * cache does not catch up in time, as kube's cacher delegates and falls back.
   */
  async list(prefix: string, opts: { anyRevision?: boolean } = {}): Promise<CachedList<T>> {
    // Running before the list is read, so a watch from the list's revision is the cache's to serve.
    // A load this list starts is itself a read of storage made after the list began.
    const loading = !this.ready;
    await this.start();
    if (!opts.anyRevision) {
      if (!(await this.storage.watchProgressSupport()).supported) {
        return loading ? this.listed(prefix) : this.listStorage(prefix);
      }
      const current = await this.storage.currentRevision();
      const fresh = await this.waitFor(current).then(
        () => true,
        (err: unknown) => {
          if (err instanceof TooLargeResourceVersion) return false;
          countConsistentRead(this.prefix, false, false);
          throw err;
        },
      );
      if (!fresh) {
        const listed = await this.listStorage(prefix).catch((err: unknown) => {
          countConsistentRead(this.prefix, false, true);
          throw err;
        });
        countConsistentRead(this.prefix, true, true);
        return listed;
      }
      countConsistentRead(this.prefix, true, false);
    }
    return this.listed(prefix);
  }

  /** What the cache holds under `prefix` now. */
  private listed(prefix: string): CachedList<T> {
    const items = this.sortedKeys(prefix).map((key) => {
      const v = this.objects.get(key)!;
      return { key, object: v.object, revision: v.revision };
    });
    return { items, revision: this.revision };
  }

  /** The list read from storage, with the cache's objects wherever it holds the same revisions. */
  private async listStorage(prefix: string): Promise<CachedList<T>> {
    const { kvs, revision } = await this.storage.range(prefix);
    const items = kvs.map((kv) => ({
      key: kv.key,
      object: this.heldAt(kv.key, kv.modRevision) ?? this.decode(kv),
      revision: kv.modRevision,
    }));
    return { items, revision };
  }

  /** One object as the cache holds it now (resourceVersion "0": any recent state will do). */
  async get(key: string): Promise<{ object: T; revision: number } | undefined> {
    await this.start();
    return this.objects.get(key);
  }

  /**
   * The object the cache holds for `key`, if it is the one `revision` wrote (a key's modRevision
   * names one write, hence one stored value): what a read from storage would decode. Starts
   * nothing: undefined while the cache is not running.
   */
  heldAt(key: string, revision: number): T | undefined {
    const held = this.objects.get(key);
    return held?.revision === revision ? held.object : undefined;
  }

  /** Resolves once the cache reflects `revision`; TooLargeResourceVersion if that takes too long. */
  async waitFresh(revision: number): Promise<void> {
    await this.start();
    await this.waitFor(revision);
  }

  /** Events under `prefix` after `afterRevision`, then every later one. */
  watch(prefix: string, afterRevision: number, callbacks: CachedWatchCallbacks<T>): { close(): void } {
    let closed = false;
    let inner: { close(): void } | undefined;
    const watcher: Watcher<T> = { prefix, after: afterRevision, callbacks };
    const close = (): void => {
      closed = true;
      inner?.close();
      this.watchers.delete(watcher);
    };
    void (async () => {
      if (afterRevision < this.expiredBefore) throw compacted(afterRevision + 1, this.expiredBefore);
      await this.start();
      await this.waitFor(afterRevision);
      if (closed) return;
      if (afterRevision < this.replayableAfter) {
        // Older than the window: storage may still have it (and says Compacted if not).
        inner = this.storage.watch(prefix, afterRevision, {
          onEvents: (events) => callbacks.onEvents(events.map((ev) => this.toCached(ev))),
          onError: (err) => callbacks.onError(err),
        });
        return;
      }
      // Replay and registration in one synchronous step: nothing missed, nothing twice.
      const replay = this.window.after(afterRevision, prefix);
      this.watchers.add(watcher);
      if (replay.length) callbacks.onEvents(replay);
    })().catch((err: unknown) => {
      if (!closed) callbacks.onError(err instanceof Error ? err : new Error(String(err)));
      close();
    });
    return { close };
  }

  /**
   * Forgets every event up to `revision`: a watch resuming from before it then fails Compacted
   * (kube's 410, "too old resource version"), as once kube's cacher's window has moved past it,
   * without asking storage, which may still have it. For the testing API's expireHistory.
   */
  expireHistory(revision: number): void {
    this.expiredBefore = Math.max(this.expiredBefore, revision);
    while (this.window.length > 0 && this.window.first()!.revision <= revision) this.window.shift();
    this.replayableAfter = Math.max(this.replayableAfter, revision);
  }

  stop(): void {
    this.stopped = true;
    this.upstream?.close();
    for (const w of this.watchers) w.callbacks.onError(unavailable('watch cache stopped'));
    this.watchers.clear();
  }

  private put(key: string, object: T, revision: number): void {
    if (!this.objects.has(key)) this.sorted.clear();
    this.objects.set(key, { object, revision });
    const parent = parentOf(key);
    let siblings = this.byParent.get(parent);
    if (!siblings) this.byParent.set(parent, (siblings = new Set()));
    siblings.add(key);
  }

  private remove(key: string): void {
    if (this.objects.delete(key)) this.sorted.clear();
    const parent = parentOf(key);
    const siblings = this.byParent.get(parent);
    siblings?.delete(key);
    if (siblings?.size === 0) this.byParent.delete(parent);
  }

  /**
   * The keys under `prefix`, in order: the whole cache's, a namespace's (its parent path) or, for
   * any other prefix, a scan. Kept between lists until a key comes or goes; updates change none.
   */
  private sortedKeys(prefix: string): readonly string[] {
    let keys = this.sorted.get(prefix);
    if (!keys) {
      const unsorted =
        prefix === this.prefix
          ? [...this.objects.keys()]
          : [...(this.byParent.get(prefix) ?? [...this.objects.keys()].filter((key) => key.startsWith(prefix)))];
      keys = unsorted.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      if (this.sorted.size >= MAX_SORTED_PREFIXES) this.sorted.clear();
      this.sorted.set(prefix, keys);
    }
    return keys;
  }

  private start(): Promise<void> {
    if (!this.ready) {
      const ready = (this.ready = this.load());
      // A load that failed (storage away) is tried again by the next read, not remembered: the
      // informers' relists depend on it.
      ready.catch(() => {
        if (this.ready === ready) this.ready = undefined;
      });
    }
    return this.ready;
  }

  private async load(): Promise<void> {
    const { kvs, revision } = await this.storage.range(this.prefix);
    this.objects.clear();
    this.byParent.clear();
    this.sorted.clear();
    for (const kv of kvs) this.put(kv.key, this.decode(kv), kv.modRevision);
    this.window.clear();
    this.revision = revision;
    this.replayableAfter = revision;
    this.upstream = this.storage.watch(this.prefix, revision, {
      onEvents: (events) => this.apply(events),
      onError: (err) => this.restart(err),
      onProgress: (rev) => {
        if (rev > this.revision) this.revision = rev;
        this.wake();
      },
    });
  }

  private apply(events: WatchEvent[]): void {
    // In order: an event's previous value is what the one before it left in `objects`.
    const cached = events.map((ev) => {
      const held = ev.prevKv ? this.objects.get(ev.kv.key) : undefined;
      const ce = this.toCached(ev, held && held.revision === ev.prevKv!.modRevision ? held.object : undefined);
      if (ce.type === 'delete') this.remove(ce.key);
      else this.put(ce.key, ce.object, ce.revision);
      return ce;
    });
    for (let i = 0; i < cached.length; i++) {
      const ev = cached[i]!;
      this.window.push(ev, events[i]!.kv.value.length + (events[i]!.prevKv?.value.length ?? 0));
      this.revision = ev.revision;
    }
    while (this.window.length > this.windowSize || (this.window.bytes > this.windowBytes && this.window.length > 0))
      this.replayableAfter = this.window.shift()!.revision;
    for (const w of this.watchers) {
      // A watch registered once the cache's revision passed `after` on a progress notification
      // alone (etcd before 3.4.31/3.5.13 may send one ahead of its events) must not then be sent
      // the events it started after.
      const mine = cached.filter((ev) => ev.revision > w.after && ev.key.startsWith(w.prefix));
      if (mine.length) w.callbacks.onEvents(mine);
    }
    this.wake();
  }

  /**
   * The upstream watch ended (storage outage beyond the resume budget, or compaction): watchers
   * end, as kube's cacher terminates them on reinitialisation, and the cache reloads.
   */
  private restart(err: Error): void {
    this.upstream = undefined;
    for (const w of this.watchers)
      w.callbacks.onError(isStorageError(err, 'Compacted') ? err : unavailable(err.message));
    this.watchers.clear();
    if (this.stopped) return;
    const retry = (): void => {
      if (this.stopped) return;
      this.ready = this.load();
      this.ready.catch(() => setTimeout(retry, RESTART_DELAY_MS).unref());
    };
    setTimeout(retry, RESTART_DELAY_MS).unref();
  }

  /**
   * `held`: the previous value as the cache already holds it (decoded from the same stored bytes at
   * the same revision), so an update or delete decodes only its new value.
   */
  private toCached(ev: WatchEvent, held?: T): CachedEvent<T> {
    const previous = ev.prevKv && (held ?? this.decode(ev.prevKv));
    const object = this.decode(ev.kv, previous, ev.type === 'delete' && ev.kv.value === ev.prevKv!.value);
    return {
      type: ev.type,
      key: ev.kv.key,
      object,
      ...(previous !== undefined ? { previous } : {}),
      revision: ev.kv.modRevision,
    };
  }

  /** Resolves once the cache reflects `revision`; TooLargeResourceVersion after the timeout. */
  private waitFor(revision: number): Promise<void> {
    if (revision <= this.revision) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { revision, resolve };
      this.waiters.push(waiter);
      // Nothing may change under our prefix for a long time: ask storage to vouch for the revision.
      this.upstream?.requestProgress();
      setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i < 0) return;
        this.waiters.splice(i, 1);
        reject(new TooLargeResourceVersion(revision, this.revision));
      }, this.freshnessTimeoutMs).unref();
    });
  }

  private wake(): void {
    const [due, pending] = partition(this.waiters, (w) => w.revision <= this.revision);
    this.waiters = pending;
    for (const w of due) w.resolve();
  }
}

/** `/registry/g/r/ns/` of `/registry/g/r/ns/name`. */
const parentOf = (key: string): string => key.slice(0, key.lastIndexOf('/') + 1);

function partition<T>(items: T[], pred: (t: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (pred(item) ? yes : no).push(item);
  return [yes, no];
}

/**
 * The window's events in order, with the stored size of each (value plus previous value) and their
 * sum. Events leave from the front: a full window drops one per event, and copying the rest each
 * time (10,000 of them) was a create's largest allocation. Dropped slots are reclaimed once they
 * are half the array, so each event is moved at most once on average.
 */
class EventWindow<E extends { revision: number; key: string }> {
  /** Slots before `start` are dropped events, emptied so that they can be collected. */
  private events: (E | undefined)[] = [];
  private sizes: number[] = [];
  private start = 0;
  /** The sum of the held events' sizes. */
  bytes = 0;

  get length(): number {
    return this.events.length - this.start;
  }

  first(): E | undefined {
    return this.events[this.start];
  }

  push(ev: E, size: number): void {
    this.events.push(ev);
    this.sizes.push(size);
    this.bytes += size;
  }

  /** Drops the oldest event and returns it. */
  shift(): E | undefined {
    if (this.start >= this.events.length) return undefined;
    const ev = this.events[this.start]!;
    this.bytes -= this.sizes[this.start]!;
    this.events[this.start] = undefined;
    this.start++;
    if (this.start >= 1024 && this.start * 2 >= this.events.length) {
      const n = this.events.length - this.start;
      this.events.copyWithin(0, this.start);
      this.sizes.copyWithin(0, this.start);
      this.events.length = n;
      this.sizes.length = n;
      this.start = 0;
    }
    return ev;
  }

  /** The held events after `revision` under `prefix`, oldest first. */
  after(revision: number, prefix: string): E[] {
    const out: E[] = [];
    for (let i = this.start; i < this.events.length; i++) {
      const ev = this.events[i]!;
      if (ev.revision > revision && ev.key.startsWith(prefix)) out.push(ev);
    }
    return out;
  }

  clear(): void {
    this.events = [];
    this.sizes = [];
    this.start = 0;
    this.bytes = 0;
  }
}
