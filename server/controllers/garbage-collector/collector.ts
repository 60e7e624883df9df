// The garbage collector (kube-controller-manager's, in process): every kind in the catalog is
// observed (CRD kinds as they are installed), the owner graph is kept by uid, and two queues act
// on it: attemptToDelete (dependents whose owners are all gone, owners waiting in the foreground)
// and attemptToOrphan (owners deleted with the orphan finalizer). Decisions are made on live reads,
// never on the graph alone, because the graph lags the stores. Events are recorded through the
// caller's `recordEvent` (the server passes its events store), so the collector needs no API wiring.
import { ApiError, ignoreNotFound } from '../../../apimachinery/errors.js';
import type { Logger } from '../../../apimachinery/log.js';
import type { KubeObject, OwnerReference } from '../../../apimachinery/object.js';
import {
  FINALIZER_DELETE_DEPENDENTS,
  FINALIZER_ORPHAN_DEPENDENTS,
} from '../../../apimachinery/validation/object-meta.js';
import type { Catalog } from '../../registry/catalog.js';
import { Informer } from '../../registry/informer.js';
import type { Store } from '../../registry/store.js';
import { type EventRecorder, epochNanos, invalidNamespaceOwnerRefEvent } from './events.js';
import { type Clock, systemClock } from '../../../apimachinery/clock.js';
import {
  type Identity,
  type InvalidReference,
  type ReferenceState,
  type Work,
  Graph,
  decide,
  groupOf,
  isDeletingDependents,
  isOrphaning,
  nodeOf,
  ownerReferences,
} from './graph.js';
import { WorkQueue } from './queue.js';

interface GarbageCollectorOptions {
  /**
   * Whether this replica may act. Several API servers on one etcd each run a collector; kube runs
   * it in the one elected controller-manager, and so do we (leader-election.ts). The graph is kept
   * either way, so a replica that becomes leader acts at once, after `resync()`.
   */
  isLeader?: () => boolean;
  /** Items worked on per tick (default 64), and at once within a tick (default 16). */
  maxPerTick?: number;
  concurrency?: number;
  /**
   * Writes a core/v1 Event (kube's graph builder records `OwnerRefInvalidNamespace`); absent, none
   * is recorded. Best effort, as client-go's recorder: a failure is logged and dropped.
   */
  recordEvent?: EventRecorder;
  /** The server's clock, for the Events' times. */
  clock?: Clock;
}

/** Resources kube's collector never observes (DefaultIgnoredResources): events, core and events.k8s.io. */
const IGNORED_RESOURCES = new Set(['\x00events', 'events.k8s.io\x00events']);
// Invalid references already reported by this process: a relist or a new term as leader does not
// record the same Event again (kube's correlator would fold repeats into one; we do not repeat).
const REPORTED_CACHE_SIZE = 1000;

// kube's absentOwnerCache is an LRU of 500 entries; a bounded set dropping the oldest does here.
const ABSENT_CACHE_SIZE = 500;
const NOT_LEADER_RETRY_MS = 1000;

/** Thrown inside an update when the object was replaced under the same name. */
class Replaced extends Error {}

export class GarbageCollector {
  private readonly graph = new Graph();
  /** kube's monitors: one informer per observed store. */
  private readonly monitors = new Map<Store, Informer>();
  private readonly deleteQueue: WorkQueue;
  private readonly orphanQueue: WorkQueue;
  private readonly absent = new Set<string>();
  private readonly reported = new Set<string>();
  private readonly recordEvent: EventRecorder | undefined;
  private readonly clock: Clock;
  private readonly isLeader: () => boolean;
  private readonly maxPerTick: number;
  private readonly concurrency: number;
  private unsubscribe: (() => void) | undefined;
  private scheduled = false;
  private ticking = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private storesByKind = new Map<string, Store>();
  private storesAt = -1;

  constructor(
    private readonly catalog: Catalog,
    private readonly logger: Logger,
    opts: GarbageCollectorOptions = {},
  ) {
    this.isLeader = opts.isLeader ?? (() => true);
    this.maxPerTick = opts.maxPerTick ?? 64;
    this.concurrency = opts.concurrency ?? 16;
    this.recordEvent = opts.recordEvent;
    this.clock = opts.clock ?? systemClock;
    this.deleteQueue = new WorkQueue(() => this.schedule());
    this.orphanQueue = new WorkQueue(() => this.schedule());
  }

  /** Resolves once every served kind has been listed into the graph. */
  async start(): Promise<void> {
    this.unsubscribe = this.catalog.onChange(() => {
      this.syncMonitors().catch((err: unknown) =>
        this.logger.warn('garbage collector could not observe a resource', { err: String(err) }),
      );
    });
    await this.syncMonitors();
    this.logger.info('garbage collector started', { resources: this.monitors.size, objects: this.graph.size });
  }

  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    for (const m of this.monitors.values()) m.close();
    this.monitors.clear();
    this.deleteQueue.close();
    this.orphanQueue.close();
    if (this.timer) clearTimeout(this.timer);
  }

  /**
   * Queues every object that may need work (it has owners, or waits in a GC finalizer), as a
   * fresh collector's first lists would: called when this replica becomes the leader, so that
   * nothing the previous leader left half done, or handled while we only watched, is missed.
   * Decisions are made on live reads, so items already settled cost one read each.
   */
  resync(): void {
    if (this.closed) return;
    for (const uid of this.graph.uidsWhere((n) => n.owners.length > 0 || n.deletingDependents))
      this.deleteQueue.add(uid);
    for (const uid of this.graph.uidsWhere((n) => n.orphaning)) this.orphanQueue.add(uid);
    for (const r of this.graph.invalidNamespaceReferences()) this.reportInvalidNamespace(r);
  }

  /** Nothing queued or in progress (for tests and benchmarks). */
  get idle(): boolean {
    return this.deleteQueue.empty && this.orphanQueue.empty && !this.ticking;
  }

  /** Whether the graph holds the object with this uid (for tests and benchmarks). */
  observed(uid: string): boolean {
    return this.graph.node(uid) !== undefined;
  }

  private async syncMonitors(): Promise<void> {
    const served = new Set(
      this.catalog.stores().filter((s) => !IGNORED_RESOURCES.has(`${s.kind.group}\x00${s.kind.resource}`)),
    );
    // A store that left the catalog is closed by its owner right after: stop watching it first.
    for (const [store, m] of this.monitors) {
      if (!served.has(store)) {
        m.close();
        this.monitors.delete(store);
      }
    }
    const started: Promise<void>[] = [];
    for (const store of served) {
      if (this.monitors.has(store)) continue;
      const m = new Informer(
        store,
        {
          upsert: (obj) => this.enqueue(this.graph.upsert(nodeOf(obj))),
          remove: (obj) => this.enqueue(this.graph.remove(obj.metadata.uid ?? '')),
          resync: (present) => {
            const gone = this.graph.uidsWhere((n) => this.isOfStore(n.identity, store) && !present.has(n.identity.uid));
            for (const uid of gone) this.enqueue(this.graph.remove(uid));
          },
        },
        this.logger,
      );
      this.monitors.set(store, m);
      // A kind that cannot be listed now is retried in the background, delaying only itself.
      started.push(
        m.start().catch((err: unknown) =>
          this.logger.warn('garbage collector list failed, retrying', {
            resource: store.kind.resource,
            err: String(err),
          }),
        ),
      );
    }
    await Promise.all(started);
  }

  private enqueue(work: Work): void {
    for (const uid of work.attemptToDelete) this.deleteQueue.add(uid);
    for (const uid of work.attemptToOrphan) this.orphanQueue.add(uid);
    for (const r of work.invalidNamespace) this.reportInvalidNamespace(r);
  }

  /**
   * kube's reportInvalidNamespaceOwnerRef. Only the leader reports (kube's graph builder runs in
   * the elected controller-manager); a replica that becomes leader reports what its graph holds.
   */
  private reportInvalidNamespace({ dependent, ref }: InvalidReference): void {
    if (!this.recordEvent || this.closed || !this.isLeader()) return;
    const key = `${dependent.uid}\x00${ref.uid}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    if (this.reported.size > REPORTED_CACHE_SIZE) this.reported.delete(this.reported.values().next().value!);
    this.logger.debug('item references an owner but does not match namespaces', { ...dependent, owner: ref.uid });
    this.recordEvent(invalidNamespaceOwnerRefEvent(dependent, ref, epochNanos(this.clock))).catch((err: unknown) => {
      this.logger.warn('garbage collector could not record an event', {
        ...dependent,
        reason: 'OwnerRefInvalidNamespace',
        err: err instanceof Error ? err.message : String(err),
      });
    });
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.tick();
    });
  }

  /** One bounded batch of work; the next tick is scheduled while work remains. */
  private async tick(): Promise<void> {
    if (this.ticking || this.closed) return;
    if (!this.isLeader()) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, NOT_LEADER_RETRY_MS);
      return;
    }
    this.ticking = true;
    try {
      const orphans = this.orphanQueue.take(this.maxPerTick);
      const deletes = this.deleteQueue.take(this.maxPerTick - orphans.length);
      const jobs = [
        ...orphans.map((uid) => () => this.run(this.orphanQueue, uid, () => this.attemptToOrphan(uid))),
        ...deletes.map((uid) => () => this.run(this.deleteQueue, uid, () => this.attemptToDelete(uid))),
      ];
      await limited(jobs, this.concurrency);
    } finally {
      this.ticking = false;
    }
    if (this.orphanQueue.length > 0 || this.deleteQueue.length > 0) this.schedule();
  }

  private async run(queue: WorkQueue, uid: string, work: () => Promise<boolean>): Promise<void> {
    let retry: boolean;
    try {
      retry = await work();
    } catch (err) {
      if (!this.closed)
        this.logger.warn('garbage collector work failed, retrying', {
          uid,
          err: err instanceof Error ? err.message : String(err),
        });
      retry = true;
    }
    queue.done(uid, retry && !this.closed);
  }

  // --- attemptToDelete ---------------------------------------------------------------------

  /** True when the item must be tried again later. */
  private async attemptToDelete(uid: string): Promise<boolean> {
    const node = this.graph.node(uid);
    if (!node) return false;
    const store = this.storeFor(node.identity.apiVersion, node.identity.kind);
    if (!store) return false;
    const latest = await this.getLive(store, node.identity);
    // Gone: its watch reports it and the graph follows.
    if (!latest) return false;
    if (isDeletingDependents(latest)) return this.processDeletingDependents(store, latest);
    // Being deleted some other way: nothing for the collector to do.
    if (latest.metadata.deletionTimestamp) return false;
    const refs = ownerReferences(latest);
    if (refs.length === 0) return false;
    const states = await Promise.all(refs.map(async (ref) => ({ ref, state: await this.classify(ref, latest) })));
    const dependents = this.graph.dependents(uid);
    const decision = decide({
      refs: states,
      hasDependents: dependents.length > 0,
      dependentDeletingDependents: dependents.some((d) => d.deletingDependents),
      finalizers: latest.metadata.finalizers ?? [],
    });
    const id = identityOf(latest);
    switch (decision.action) {
      case 'none':
        return false;
      case 'retry':
        return true;
      case 'patch': {
        this.logger.debug('garbage collector updating owner references', {
          ...id,
          remove: decision.remove,
          unblock: decision.unblock,
        });
        const remove = new Set(decision.remove);
        const unblock = new Set(decision.unblock);
        await this.updateOwnerReferences(store, id, (r) =>
          remove.has(r.uid)
            ? undefined
            : unblock.has(r.uid) && r.blockOwnerDeletion
              ? { ...r, blockOwnerDeletion: false }
              : r,
        );
        return false;
      }
      case 'delete': {
        if (decision.unblockFirst) {
          // A foreground cycle: this item's owner waits on it while one of its dependents waits on
          // this item. Unblocking lets the owner finish; deleting this one in the foreground drains the rest.
          await this.updateOwnerReferences(store, id, (r) =>
            r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r,
          );
        }
        // kube logs these at V(2): one line per object would flood info in a large cascade.
        this.logger.debug('garbage collector deleting object', { ...id, propagationPolicy: decision.policy });
        try {
          await store.delete(nsArg(id), id.name, {
            dryRun: false,
            preconditions: {
              uid: id.uid,
              ...(decision.unblockFirst ? {} : { resourceVersion: latest.metadata.resourceVersion ?? '' }),
            },
            propagationPolicy: decision.policy,
          });
        } catch (err) {
          if (err instanceof ApiError && err.code === 404) return false;
          // Changed since it was read: decide again on what it is now.
          if (err instanceof ApiError && err.code === 409) return true;
          throw err;
        }
        return false;
      }
    }
  }

  /**
   * An owner deleted in the foreground: its blocking dependents are deleted (queued; they are
   * already queued when the owner started waiting), and once none remains its finalizer goes.
   */
  private async processDeletingDependents(store: Store, owner: KubeObject): Promise<boolean> {
    const uid = owner.metadata.uid ?? '';
    const blocking = this.graph.blockingDependents(uid);
    if (blocking.length === 0) {
      this.logger.debug('garbage collector removing the foregroundDeletion finalizer', { ...identityOf(owner) });
      await this.removeFinalizer(store, identityOf(owner), FINALIZER_DELETE_DEPENDENTS);
      return false;
    }
    for (const dep of blocking) {
      if (!dep.deletingDependents) {
        this.deleteQueue.add(dep.identity.uid);
        continue;
      }
      // A dependent that waits on this owner in turn (itself, or through a ring of foreground
      // deletes): kube would wait forever; unblocking its reference lets the ring drain.
      if (dep.identity.uid === uid || this.graph.waitsOn(dep.identity.uid, uid)) {
        const depStore = this.storeFor(dep.identity.apiVersion, dep.identity.kind);
        if (depStore)
          await this.updateOwnerReferences(depStore, dep.identity, (r) =>
            r.uid === uid && r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r,
          );
      }
    }
    return false;
  }

  /** kube's isDangling with classifyReferences: the owner read live where the dependent would find it. */
  private async classify(ref: OwnerReference, dependent: KubeObject): Promise<ReferenceState> {
    const store = this.storeFor(ref.apiVersion, ref.kind);
    if (!store) return 'unresolved';
    const dependentNamespace = dependent.metadata.namespace ?? '';
    // A cluster-scoped object cannot be owned by a namespaced one; kube reports it and moves on.
    if (store.kind.namespaced && !dependentNamespace) return 'invalid';
    const namespace = store.kind.namespaced ? dependentNamespace : '';
    const key = `${ref.uid}\x00${groupOf(ref.apiVersion)}\x00${ref.kind}\x00${ref.name}\x00${namespace}`;
    if (this.absent.has(key)) return 'dangling';
    const owner = await store.get(namespace || undefined, ref.name).catch(ignoreNotFound);
    if (!owner || owner.metadata.uid !== ref.uid) {
      this.rememberAbsent(key);
      return 'dangling';
    }
    return isDeletingDependents(owner) ? 'waiting' : 'solid';
  }

  private rememberAbsent(key: string): void {
    this.absent.add(key);
    if (this.absent.size > ABSENT_CACHE_SIZE) this.absent.delete(this.absent.values().next().value!);
  }

  // --- attemptToOrphan ---------------------------------------------------------------------

  /** An owner deleted with the orphan finalizer: its dependents let go of it, then the finalizer goes. */
  private async attemptToOrphan(uid: string): Promise<boolean> {
    const node = this.graph.node(uid);
    if (!node) return false;
    const store = this.storeFor(node.identity.apiVersion, node.identity.kind);
    if (!store) return false;
    const owner = await this.getLive(store, node.identity);
    if (!owner || !isOrphaning(owner)) return false;
    const dependents = this.graph.dependents(uid);
    await limited(
      dependents.map((dep) => async () => {
        const depStore = this.storeFor(dep.identity.apiVersion, dep.identity.kind);
        if (depStore) await this.updateOwnerReferences(depStore, dep.identity, (r) => (r.uid === uid ? undefined : r));
      }),
      this.concurrency,
    );
    this.logger.debug('garbage collector orphaned dependents', { ...identityOf(owner), dependents: dependents.length });
    await this.removeFinalizer(store, identityOf(owner), FINALIZER_ORPHAN_DEPENDENTS);
    return false;
  }

  // --- reads and writes --------------------------------------------------------------------

  /** The object now, or undefined when it is gone or was replaced by another of the same name. */
  private async getLive(store: Store, id: Identity): Promise<KubeObject | undefined> {
    const obj = await store.get(nsArg(id), id.name).catch(ignoreNotFound);
    return obj && obj.metadata.uid === id.uid ? obj : undefined;
  }

  /** Rewrites the object's owner references (`map` drops one by answering undefined). */
  private async updateOwnerReferences(
    store: Store,
    id: Identity,
    map: (r: OwnerReference) => OwnerReference | undefined,
  ): Promise<void> {
    await this.updateIfSame(store, id, (obj) => {
      const refs = (obj.metadata.ownerReferences ?? []).map(map).filter((r): r is OwnerReference => r !== undefined);
      if (refs.length) obj.metadata.ownerReferences = refs;
      else delete obj.metadata.ownerReferences;
    });
  }

  private async removeFinalizer(store: Store, id: Identity, finalizer: string): Promise<void> {
    await this.updateIfSame(store, id, (obj) => {
      const rest = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      if (rest.length) obj.metadata.finalizers = rest;
      else delete obj.metadata.finalizers;
    });
  }

  /** A read-modify-write of the object with this uid; nothing when it is gone or replaced. */
  private async updateIfSame(store: Store, id: Identity, change: (obj: KubeObject) => void): Promise<void> {
    try {
      await store.update(
        nsArg(id),
        id.name,
        (obj) => {
          if (obj.metadata.uid !== id.uid) throw new Replaced();
          change(obj);
          return obj;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (err instanceof Replaced) return;
      ignoreNotFound(err);
    }
  }

  /** The store serving a group and kind, whatever the version (kube maps through the RESTMapper). */
  private storeFor(apiVersion: string, kind: string): Store | undefined {
    if (this.storesAt !== this.catalog.generation) {
      this.storesByKind = new Map(this.catalog.stores().map((s) => [`${s.kind.group}\x00${s.kind.kind}`, s]));
      this.storesAt = this.catalog.generation;
    }
    return this.storesByKind.get(`${groupOf(apiVersion)}\x00${kind}`);
  }

  private isOfStore(id: Identity, store: Store): boolean {
    return groupOf(id.apiVersion) === store.kind.group && id.kind === store.kind.kind;
  }
}

const identityOf = (obj: KubeObject): Identity => nodeOf(obj).identity;
const nsArg = (id: Identity): string | undefined => id.namespace || undefined;

/** Runs the jobs, at most `n` at a time. */
async function limited(jobs: (() => Promise<void>)[], n: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) await jobs[next++]!();
  };
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker));
}
