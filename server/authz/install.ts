// Who may do what, installed into the API: the index the authorizer reads over RBAC's four stores
// (informers over the watch caches, bindings by subject), the authorizer chain of
// --authorization-mode, the rules kube's escalation check on RBAC's writes compares with, the
// access reviews' answers, kube's bootstrap policy and the ClusterRole aggregation controller. The
// kinds themselves are the table's (server/registry/builtin/rbac.ts, reviews.ts).
import type { Authorizer } from '../../apimachinery/authorization.js';
import type { Logger } from '../../apimachinery/log.js';
import type { UserInfo } from '../../apimachinery/user.js';
import type { RuleSource } from '../../apimachinery/rbac/authorizer.js';
import type { ComputedCreates } from '../registry/builtin/kind.js';
import { ACCESS_REVIEWS, SELF_SUBJECT_REVIEWS } from '../registry/builtin/reviews.js';
import { type AuthorizationMode, alwaysAllow, alwaysDeny, authorizerChain } from './authorizer.js';
import { RbacIndex, type RbacStores, indexAuthorizer } from './rbac-index.js';
import { ClusterRoleAggregation, ensureBootstrapPolicy } from './rbac-controllers.js';
import { accessReviews, selfSubjectReview } from './reviews.js';

interface AuthorizationDeps {
  /** RBAC's four stores, the table's. */
  stores: RbacStores;
  modes: readonly AuthorizationMode[];
  logger: Logger;
}

interface Authorization {
  /** The chain of --authorization-mode over RBAC's index. */
  readonly authorizer: Authorizer;
  /** The rules RBAC's index holds for a user (what the escalation check compares a write with). */
  sourceFor(user: UserInfo): RuleSource;
  /** The bootstrap policy stored, the index listed (decisions wait for it), aggregation started. */
  start(isLeader: () => boolean): Promise<void>;
  /** A new leader re-aggregates. */
  resync(): void;
  /** Resolves once nothing is being written any more. */
  close(): Promise<void>;
}

export function installAuthorization(deps: AuthorizationDeps): Authorization {
  const { stores, logger } = deps;
  const index = new RbacIndex(stores, logger.with({ controller: 'rbac-index' }));
  const rbac = indexAuthorizer(index);
  const authorizer = authorizerChain(
    deps.modes.map((m) => (m === 'RBAC' ? rbac : m === 'AlwaysAllow' ? alwaysAllow : alwaysDeny)),
  );
  let aggregation: ClusterRoleAggregation | undefined;

  return {
    authorizer,
    sourceFor: (user) => index.sourceFor(user),
    async start(isLeader) {
      await ensureBootstrapPolicy(
        stores.clusterRoles,
        stores.clusterRoleBindings,
        logger.with({ controller: 'rbac-bootstrap' }),
      );
      await index.start();
      aggregation = new ClusterRoleAggregation(
        index,
        stores.clusterRoles,
        logger.with({ controller: 'clusterrole-aggregation' }),
        isLeader,
      );
      aggregation.resync();
    },
    resync: () => aggregation?.resync(),
    async close() {
      index.close();
      await aggregation?.close();
    },
  };
}

/** The access reviews and SelfSubjectReview, created and answered by `authorizer`, never stored. */
export function reviewCreates(authorizer: Authorizer): ComputedCreates {
  const reviews = accessReviews(authorizer);
  return new Map([
    ...ACCESS_REVIEWS.map((k) => [k, { '': reviews[k.names.plural]! }] as const),
    [SELF_SUBJECT_REVIEWS, { '': selfSubjectReview }],
  ]);
}
