// The two pieces of kube that keep RBAC's own objects right: the rbac/bootstrap-roles post-start
// hook (every replica, at start: the default ClusterRoles and ClusterRoleBindings created, and
// reconciled when they carry autoupdate "true") and the clusterrole-aggregation controller (the
// leader only: a ClusterRole with an aggregationRule holds the rules of the roles it selects, so a
// CRD's roles labelled aggregate-to-edit join edit and admin).
import { ApiError, ignoreNotFound } from '../../apimachinery/errors.js';
import type { Logger } from '../../apimachinery/log.js';
import { type ClusterRole, aggregatedRules, aggregationUpToDate } from '../../apimachinery/rbac/index.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Store } from '../registry/store.js';
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  reconcileClusterRole,
  reconcileClusterRoleBinding,
  type ReconcileResult,
} from './bootstrap-policy.js';
import type { RbacIndex } from './rbac-index.js';

const CONTROLLER_WRITE = { dryRun: false } as const;

async function reconcileOne<T extends KubeObject>(
  store: Store,
  existing: T | undefined,
  expected: T,
  reconcileFn: (existing: T | undefined, expected: T) => ReconcileResult<T>,
): Promise<void> {
  const name = expected.metadata.name!;
  const result = reconcileFn(existing, expected);
  switch (result.operation) {
    case 'none':
      return;
    case 'create':
      // Another replica may create it first: theirs is the same object.
      await store.create(undefined, result.object, CONTROLLER_WRITE).catch((err: unknown) => {
        if (!(err instanceof ApiError && err.code === 409)) throw err;
      });
      return;
    case 'update':
      await store.update(
        undefined,
        name,
        () => ({
          ...result.object,
          metadata: { ...result.object.metadata, resourceVersion: existing?.metadata.resourceVersion },
        }),
        CONTROLLER_WRITE,
      );
      return;
    case 'recreate':
      await store.delete(undefined, name, { dryRun: false }).catch(ignoreNotFound);
      await store.create(
        undefined,
        { ...result.object, metadata: { ...result.object.metadata, resourceVersion: undefined, uid: undefined } },
        CONTROLLER_WRITE,
      );
  }
}

/**
 * Each default object reconciled with what is stored under its name: kube's hook GETs each, here
 * one list of the kind (from the watch cache RBAC's index lists next) finds them all, where a get
 * per object read and decoded each of them once more at every start.
 */
async function reconcileAll<T extends KubeObject>(
  store: Store,
  expected: readonly T[],
  reconcileFn: (existing: T | undefined, expected: T) => ReconcileResult<T>,
  logger: Logger,
): Promise<void> {
  const kind = store.kind.kind;
  let stored: Map<string, KubeObject>;
  try {
    stored = new Map((await store.list(undefined)).items.map((o) => [o.metadata.name!, o]));
  } catch (err) {
    logger.warn(`could not list bootstrap ${kind}s`, { err: String(err) });
    return;
  }
  for (const object of expected) {
    const name = object.metadata.name!;
    await reconcileOne(store, stored.get(name) as T | undefined, object, reconcileFn).catch((err: unknown) =>
      logger.warn(`could not reconcile bootstrap ${kind}`, { name, err: String(err) }),
    );
  }
}

/** kube's rbac/bootstrap-roles hook: the default policy stored, as kube's reconciliation decides. */
export async function ensureBootstrapPolicy(
  clusterRoles: Store,
  clusterRoleBindings: Store,
  logger: Logger,
): Promise<void> {
  await reconcileAll(clusterRoles, bootstrapClusterRoles(), reconcileClusterRole, logger);
  await reconcileAll(clusterRoleBindings, bootstrapClusterRoleBindings(), reconcileClusterRoleBinding, logger);
}

/** kube's clusterrole-aggregation controller over the index's ClusterRoles. */
export class ClusterRoleAggregation {
  private running: Promise<void> = Promise.resolve();
  private pending = false;
  private closed = false;

  constructor(
    private readonly index: RbacIndex,
    private readonly clusterRoles: Store,
    private readonly logger: Logger,
    private readonly isLeader: () => boolean,
  ) {
    index.onClusterRolesChanged(() => this.resync());
  }

  /** Syncs every aggregated role (again once the current pass is done, if something changed meanwhile). */
  resync(): void {
    if (this.pending || this.closed) return;
    this.pending = true;
    this.running = this.running.then(async () => {
      this.pending = false;
      // Never a rejected chain: the next change must still run, and nothing may go unhandled.
      if (this.isLeader() && !this.closed)
        await this.syncAll().catch((err: unknown) =>
          this.logger.warn('ClusterRole aggregation failed', { err: String(err) }),
        );
    });
  }

  /** Resolves when the passes queued so far are done. */
  idle(): Promise<void> {
    return this.running;
  }

  /** Stops; resolves once a pass under way has stopped writing (before storage closes). */
  close(): Promise<void> {
    this.closed = true;
    return this.running;
  }

  private async syncAll(): Promise<void> {
    const all = this.index.allClusterRoles();
    for (const role of all) {
      if (this.closed) return;
      if (!role.aggregationRule || aggregationUpToDate(role, all)) continue;
      const name = role.metadata.name!;
      try {
        await this.clusterRoles.update(
          undefined,
          name,
          (current) => {
            const rules = aggregatedRules(current as ClusterRole, this.index.allClusterRoles());
            return { ...current, rules: rules ?? [] };
          },
          CONTROLLER_WRITE,
        );
      } catch (err) {
        // The write's own event re-runs the pass; a role that went is nothing to do.
        if (!(err instanceof ApiError && err.code === 404))
          this.logger.warn('could not aggregate ClusterRole', { name, err: String(err) });
      }
    }
  }
}
