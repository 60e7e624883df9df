// The namespace controller: a namespace marked for deletion is emptied (every namespaced object of
// every served kind is deleted), then its `kubernetes` finalizer is removed, which deletes it.
// Each pass reports in the namespace's status.conditions as kube's deleter does
// (pkg/controller/namespace/deletion). It also makes sure the namespaces every cluster starts with exist.
import { ApiError, ignoreNotFound } from '../../apimachinery/errors.js';
import type { Logger } from '../../apimachinery/log.js';
import { type KubeObject, nowTimestamp } from '../../apimachinery/object.js';
import type { Catalog } from '../registry/catalog.js';
import { Informer } from '../registry/informer.js';
import type { Store } from '../registry/store.js';
import { NAMESPACE_FINALIZER, isTerminating } from '../registry/builtin/namespaces.js';

const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const RETRY_MS = 1000;

/**
 * The conditions kube's deleter keeps, in its order, each with what it says when all is well
 * (status_condition_utils.go): every one is written on the first pass, False until it is not.
 */
const allWell = (type: string, reason: string, message: string) => ({ type, reason, message });
const DELETION_CONDITIONS: readonly { type: string; reason: string; message: string }[] = [
  allWell('NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'),
  allWell(
    'NamespaceDeletionGroupVersionParsingFailure',
    'ParsedGroupVersions',
    'All legacy kube types successfully parsed',
  ),
  allWell(
    'NamespaceDeletionContentFailure',
    'ContentDeleted',
    'All content successfully deleted, may be waiting on finalization',
  ),
  allWell('NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'),
  allWell('NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'),
];

interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** What one pass over a namespace's content found: kube's allGVRDeletionMetadata and its errors. */
interface ContentOutcome {
  /** Objects left, by `resource.group` (kube's "configmaps." for the core group). */
  remaining: Map<string, number>;
  /** Objects left, by each finalizer they wait on. */
  finalizers: Map<string, number>;
  /** Why a resource could not be emptied (a refused delete, objects left with no finalizer). */
  errors: string[];
}

/** "a has 1 resource instances, b has 2 ...", sorted as kube sorts them for stable updates. */
const tally = (counts: Map<string, number>, format: (key: string, n: number) => string): string =>
  [...counts]
    .map(([key, n]) => format(key, n))
    .sort()
    .join(', ');

/** The failing conditions of a pass; the others are written with their all-is-well text. */
function failures(outcome: ContentOutcome): Map<string, Omit<NamespaceCondition, 'type'>> {
  const failing = new Map<string, Omit<NamespaceCondition, 'type'>>();
  if (outcome.errors.length > 0) {
    const errors = [...outcome.errors].sort();
    failing.set('NamespaceDeletionContentFailure', {
      status: 'True',
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${errors.length} remaining: ${errors.join(', ')}`,
    });
  }
  if (outcome.remaining.size > 0) {
    const resources = tally(outcome.remaining, (resource, n) => `${resource} has ${n} resource instances`);
    const message = `Some resources are remaining: ${resources}`;
    failing.set('NamespaceContentRemaining', { status: 'True', reason: 'SomeResourcesRemain', message });
  }
  if (outcome.finalizers.size > 0) {
    const finalizers = tally(outcome.finalizers, (finalizer, n) => `${finalizer} in ${n} resource instances`);
    failing.set('NamespaceFinalizersRemaining', {
      status: 'True',
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizers}`,
    });
  }
  return failing;
}

/**
 * kube's updateConditions: each of the deleter's conditions set to this pass's outcome, in place
 * (others kept where they are), lastTransitionTime moved (to `now`) only when the status changes.
 */
function applyDeletionConditions(ns: KubeObject, outcome: ContentOutcome, now: string): void {
  const status = (ns['status'] as { conditions?: NamespaceCondition[] } | undefined) ?? {};
  const conditions = (status.conditions ??= []);
  ns['status'] = status;
  const failing = failures(outcome);
  for (const { type, reason, message } of DELETION_CONDITIONS) {
    const next = failing.get(type) ?? { status: 'False' as const, reason, message };
    const old = conditions.find((c) => c.type === type);
    if (!old) {
      conditions.push({
        type,
        status: next.status,
        lastTransitionTime: now,
        reason: next.reason,
        message: next.message,
      });
    } else if (old.status !== next.status || old.reason !== next.reason || old.message !== next.message) {
      if (old.status !== next.status) old.lastTransitionTime = now;
      Object.assign(old, next);
    }
  }
}

interface NamespaceControllerOptions {
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
    private readonly namespaces: Store,
    private readonly catalog: Catalog,
    private readonly logger: Logger,
    opts: NamespaceControllerOptions = {},
  ) {
    this.isLeader = opts.isLeader ?? (() => true);
    this.informer = new Informer(
      namespaces,
      {
        upsert: (ns) => {
          const name = ns.metadata.name ?? '';
          if (!isTerminating(ns)) return void this.terminating.delete(name);
          this.terminating.add(name);
          this.finalize(name);
        },
        remove: (ns) => void this.terminating.delete(ns.metadata.name ?? ''),
      },
      logger,
    );
  }

  /** Takes up every terminating namespace again: called when this replica becomes the leader. */
  resync(): void {
    for (const name of this.terminating) this.finalize(name);
  }

  async start(): Promise<void> {
    for (const name of INITIAL_NAMESPACES) {
      // Looked up first, as kube's system namespaces controller does: on a restart every one is
      // there, and a create would run the whole write path only to be refused.
      if (await this.namespaces.get(undefined, name).catch(ignoreNotFound)) continue;
      await this.namespaces
        .create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false })
        .catch((err: unknown) => {
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

  /** True when the namespace is released; false when content remains (waiting on finalizers, or refused). */
  private async emptyAndRelease(name: string): Promise<boolean> {
    const outcome = await this.deleteContent(name);
    // Always written (when changed): a pass that finds all well turns earlier failures False.
    await this.namespaces
      .update(
        undefined,
        name,
        (ns) => {
          applyDeletionConditions(ns, outcome, nowTimestamp(this.namespaces.clock));
          return ns;
        },
        { subresource: 'status', dryRun: false },
      )
      .catch(ignoreNotFound);
    if (outcome.remaining.size > 0 || outcome.errors.length > 0) return false;
    await this.namespaces
      .update(
        undefined,
        name,
        (ns) => {
          const spec = (ns['spec'] ?? {}) as { finalizers?: string[] };
          ns['spec'] = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) };
          return ns;
        },
        { subresource: 'finalize', dryRun: false },
      )
      .catch(ignoreNotFound);
    return true;
  }

  /**
   * kube's deleteAllContent: every namespaced resource (at its preferred version, as discovery
   * names it) is emptied with Background propagation, then counted again. One resource's failure
   * is recorded and the others still emptied.
   */
  private async deleteContent(name: string): Promise<ContentOutcome> {
    const outcome: ContentOutcome = { remaining: new Map(), finalizers: new Map(), errors: [] };
    const seen = new Set<Store>();
    // all() lists each group's preferred version first.
    for (const d of this.catalog.all()) {
      const store = d.store;
      if (!store?.kind.namespaced || seen.has(store)) continue;
      seen.add(store);
      try {
        const { items } = await store.list(name);
        if (items.length === 0) continue;
        for (const obj of items) {
          if (obj.metadata.deletionTimestamp) continue;
          await store
            .delete(name, obj.metadata.name ?? '', { dryRun: false, propagationPolicy: 'Background' })
            .catch(ignoreNotFound);
        }
        // Deleted objects without finalizers are gone now: what is left waits on its finalizers.
        const left = (await store.list(name)).items;
        if (left.length === 0) continue;
        outcome.remaining.set(`${store.kind.resource}.${store.kind.group}`, left.length);
        let finalizers = 0;
        for (const obj of left) {
          for (const f of obj.metadata.finalizers ?? []) {
            outcome.finalizers.set(f, (outcome.finalizers.get(f) ?? 0) + 1);
            finalizers++;
          }
        }
        if (finalizers === 0) {
          // kube's text, its GroupVersionResource printed as Go prints it.
          const gvr = `${d.group}/${d.version}, Resource=${store.kind.resource}`;
          outcome.errors.push(`unexpected items still remain in namespace: ${name} for gvr: ${gvr}`);
        }
      } catch (err) {
        outcome.errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    return outcome;
  }
}
