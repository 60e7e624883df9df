// The server's open watches: ended together at shutdown or when what they watch is no longer
// served, and weighed, each against its own limits and all against one budget, as kube's cacher
// weighs its watchers.
import { type Logger, silentLogger } from '../../../apimachinery/log.js';
import type { Store } from '../../registry/store.js';
import {
  type Backlog,
  DEFAULT_WATCH_BUDGET_BYTES,
  type TerminationReason,
  WatchBudget,
  type WatchKind,
  type WatchStats,
  overWatcherLimits,
  watchStats,
} from './budget.js';

/** One watch as the registry weighs it. */
export interface TrackedWatcher {
  readonly group: string;
  readonly resource: string;
  backlog(): Backlog;
  /** Ends the watch for falling behind. */
  terminate(): void;
}

interface WatchRegistryOptions {
  /** Bytes pending across all watchers before the furthest behind are ended. */
  budgetBytes?: number;
  /** kube's --min-request-timeout: a watch without timeoutSeconds ends after 1 to 2 times this. */
  minRequestTimeoutSeconds?: number;
  logger?: Logger;
  stats?: WatchStats;
}

/** kube's --min-request-timeout: a watch without timeoutSeconds ends after 1 to 2 times this. */
export const DEFAULT_MIN_REQUEST_TIMEOUT_S = 1800;

/**
 * Active watches, so a shutdown, or the removal of what they watch, can end them cleanly; and
 * what they hold back for slow clients, weighed against each watcher's limits and one budget.
 */
export class WatchRegistry {
  private readonly active = new Map<() => void, Store>();
  private readonly budget: WatchBudget<TrackedWatcher>;
  private readonly logger: Logger;
  private readonly stats: WatchStats;

  readonly minRequestTimeoutSeconds: number;

  constructor(o: WatchRegistryOptions = {}) {
    this.budget = new WatchBudget(o.budgetBytes ?? DEFAULT_WATCH_BUDGET_BYTES);
    this.minRequestTimeoutSeconds = o.minRequestTimeoutSeconds ?? DEFAULT_MIN_REQUEST_TIMEOUT_S;
    this.logger = o.logger ?? silentLogger;
    this.stats = o.stats ?? watchStats;
  }

  /** Bytes pending for this registry's watchers. */
  get pendingBytes(): number {
    return this.budget.total;
  }

  /** Weighs a watcher again after its backlog changed; it, or others, may be ended. */
  charge(w: TrackedWatcher): void {
    const backlog = w.backlog();
    const over = overWatcherLimits(backlog);
    if (over) return this.terminate(w, over, backlog);
    const before = this.budget.total;
    const victims = this.budget.update(w, backlog.bytes);
    this.stats.pendingBytes += this.budget.total - before;
    for (const victim of victims) this.terminate(victim, 'budget', victim.backlog());
  }

  /** Stops weighing a watcher that ended. */
  release(w: TrackedWatcher): void {
    const before = this.budget.total;
    this.budget.remove(w);
    this.stats.pendingBytes += this.budget.total - before;
  }

  private terminate(w: TrackedWatcher, reason: TerminationReason, backlog: Backlog): void {
    this.release(w);
    this.stats.terminatedWatcher(w.group, w.resource);
    // kube's cacher logs the same words for the same event.
    this.logger.info('Forcing watcher close due to unresponsiveness', {
      group: w.group,
      resource: w.resource,
      reason,
      pendingEvents: backlog.events,
      pendingBytes: backlog.bytes,
    });
    w.terminate();
  }

  /** Metrics: a watch of `gvk` started; the returned function ends it (once, however often called). */
  watcherStarted(gvk: WatchKind): () => void {
    return this.stats.watcherRegistered(gvk);
  }

  /** Metrics: counts one event sent to a client watching `gvk` per call. */
  eventCounter(gvk: WatchKind): () => void {
    return this.stats.watchEventCounter(gvk);
  }

  add(end: () => void, store: Store): () => void {
    this.active.set(end, store);
    return () => this.active.delete(end);
  }

  /** Ends every watch (the response is finished; clients re-watch elsewhere). */
  closeAll(): void {
    for (const end of [...this.active.keys()]) end();
  }

  /** Ends the watches on stores no longer served (a deleted CRD), as kube destroys their storage. */
  closeUnserved(served: ReadonlySet<Store>): void {
    for (const [end, store] of [...this.active]) if (!served.has(store)) end();
  }
}
