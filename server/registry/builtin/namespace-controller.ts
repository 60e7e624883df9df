// The namespace controller: a namespace marked for deletion is emptied (every namespaced object of
// every served kind is deleted), then its `kubernetes` finalizer is removed, which deletes it.
// It also makes sure the namespaces every cluster starts with exist.
import type { Storage } from '../../../storage/interface.js';
import { ApiError, ignoreNotFound } from '../../../apimachinery/errors.js';
import type { Logger } from '../../../apimachinery/log.js';
import type { Catalog } from '../catalog.js';
import { Informer } from '../informer.js';
import type { Store } from '../store.js';
import { NAMESPACE_FINALIZER, isTerminating } from './namespaces.js';

export const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const RETRY_MS = 1000;

export interface NamespaceControllerOptions {
  /**
   * Whether this replica may empty namespaces (leader election: one acts among servers sharing
   * etcd). Every replica keeps watching, so `resync()` on leadership gained finds the work.
   */
  isLeader?: () => boolean;
}

export class NamespaceController {
  private readonly informer: Informer;
  private readonly running = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Terminating namespaces as last observed: what a new leader must finish. */
  private readonly terminating = new Set<string>();
  private readonly isLeader: () => boolean;
  private closed = false;

  constructor(
    storage: Storage,
    private readonly namespaces: Store,
    private readonly catalog: Catalog,
    private readonly logger: Logger,
    opts: NamespaceControllerOptions = {},
  ) {
    this.isLeader = opts.isLeader ?? (() => true);
    this.informer = new Informer(storage, namespaces, {
      upsert: (ns) => {
        const name = ns.metadata.name ?? '';
        if (!isTerminating(ns)) return void this.terminating.delete(name);
        this.terminating.add(name);
        this.finalize(name);
      },
      remove: (ns) => void this.terminating.delete(ns.metadata.name ?? ''),
      resync: (present) => {
        for (const name of this.terminating) if (!present.has(name)) this.terminating.delete(name);
      },
    }, logger);
  }

  /** Takes up every terminating namespace again: called when this replica becomes the leader. */
  resync(): void {
    for (const name of this.terminating) this.finalize(name);
  }

  async start(): Promise<void> {
    for (const name of INITIAL_NAMESPACES) {
      await this.namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false }).catch((err: unknown) => {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
      });
    }
    await this.informer.start();
  }

  close(): void {
    this.closed = true;
    this.informer.close();
    for (const t of this.timers) clearTimeout(t);
  }

  private finalize(name: string): void {
    // Not leading: nothing is done and nothing retried; resync() picks it up on leadership.
    if (this.running.has(name) || this.closed || !this.isLeader()) return;
    this.running.add(name);
    this.emptyAndRelease(name)
      .then((done) => {
        this.running.delete(name);
        if (!done) this.retry(name);
      })
      .catch((err: unknown) => {
        this.running.delete(name);
        this.logger.warn('namespace cleanup failed, retrying', { namespace: name, err: String(err) });
        this.retry(name);
      });
  }

  private retry(name: string): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.finalize(name);
    }, RETRY_MS);
    this.timers.add(t);
  }

  /** True when the namespace is released; false when objects with finalizers remain. */
  private async emptyAndRelease(name: string): Promise<boolean> {
    let remaining = 0;
    for (const store of this.namespacedStores()) {
      const { items } = await store.list(name);
      for (const obj of items) {
        remaining++;
        if (obj.metadata.deletionTimestamp) continue;
        await store.delete(name, obj.metadata.name ?? '', { dryRun: false }).catch(ignoreNotFound);
      }
    }
    if (remaining > 0) {
      // Deleted objects without finalizers are gone now; recount before releasing.
      for (const store of this.namespacedStores()) if ((await store.list(name, { limit: 1 })).items.length) return false;
    }
    await this.namespaces
      .update(undefined, name, (ns) => {
        const spec = (ns['spec'] ?? {}) as { finalizers?: string[] };
        ns['spec'] = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) };
        return ns;
      }, { subresource: 'finalize', dryRun: false })
      .catch(ignoreNotFound);
    return true;
  }

  private namespacedStores(): Store[] {
    return this.catalog.stores().filter((s) => s.kind.namespaced);
  }
}
