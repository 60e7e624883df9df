// Who may do what, installed into the API: RBAC's four kinds (with kube's escalation check on their
// writes), the index the authorizer reads (informers over the watch caches, bindings by subject),
// the authorizer chain of --authorization-mode, the access reviews, kube's bootstrap policy and the
// ClusterRole aggregation controller.
import type { Authorizer } from '../../apimachinery/authorization.js';
import type { Logger } from '../../apimachinery/log.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { Storage } from '../../storage/interface.js';
import { AdmissionChain, type AdmissionPlugin } from '../../admission/interface.js';
import { rbacEscalationCheck } from '../../admission/rbac-escalation.js';
import { type Catalog, builtinDescriptor, createOnlyDescriptor } from '../registry/catalog.js';
import { Store } from '../registry/store.js';
import {
  CLUSTER_ROLE_BINDING_COLUMNS,
  CLUSTER_ROLE_COLUMNS,
  ROLE_BINDING_COLUMNS,
  ROLE_COLUMNS,
  clusterRoleBindingKind,
  clusterRoleBindingStrategy,
  clusterRoleKind,
  clusterRoleStrategy,
  roleBindingKind,
  roleBindingStrategy,
  roleKind,
  roleStrategy,
} from '../registry/builtin/rbac.js';
import {
  clusterRoleBindingSchema,
  clusterRoleSchema,
  reviewSchema,
  roleBindingSchema,
  roleSchema,
} from '../../apimachinery/apis/builtin-schemas.js';
import type { AuthorizationMode } from '../options.js';
import { alwaysAllow, alwaysDeny, authorizerChain } from './authorizer.js';
import { RbacIndex, indexAuthorizer } from './rbac-index.js';
import { ClusterRoleAggregation, ensureBootstrapPolicy } from './rbac-controllers.js';
import { AUTHENTICATION_GROUP, AUTHORIZATION_GROUP, accessReviews, selfSubjectReview } from './reviews.js';

export interface AuthorizationDeps {
  catalog: Catalog;
  storage: Storage;
  /** The admission plugins every store runs; RBAC's stores add the escalation check. */
  admission: readonly AdmissionPlugin[];
  modes: readonly AuthorizationMode[];
  logger: Logger;
  /** The server's clock, which the stores stamp their objects with. */
  clock: Clock;
}

export interface Authorization {
  /** The chain of --authorization-mode over RBAC's index. */
  readonly authorizer: Authorizer;
  /** The bootstrap policy stored, the index listed (decisions wait for it), aggregation started. */
  start(isLeader: () => boolean): Promise<void>;
  /** A new leader re-aggregates. */
  resync(): void;
  /** Resolves once nothing is being written any more. */
  close(): Promise<void>;
}

export function installAuthorization(deps: AuthorizationDeps): Authorization {
  const { catalog, storage, logger } = deps;
  // Late-bound: the escalation check asks the authorizer the stores are built before.
  let index: RbacIndex | undefined;
  let authorizer: Authorizer = alwaysDeny;
  const ask: Authorizer = {
    authorize: (a) => authorizer.authorize(a),
    rulesFor: (u, ns) => authorizer.rulesFor(u, ns),
  };
  const admission = new AdmissionChain([
    ...deps.admission,
    rbacEscalationCheck({ authorizer: ask, sourceFor: (u) => index!.sourceFor(u) }),
  ]);
  const stores = {
    roles: new Store(storage, roleStrategy, admission, deps.clock),
    clusterRoles: new Store(storage, clusterRoleStrategy, admission, deps.clock),
    roleBindings: new Store(storage, roleBindingStrategy, admission, deps.clock),
    clusterRoleBindings: new Store(storage, clusterRoleBindingStrategy, admission, deps.clock),
  };
  const register = (
    kind: typeof roleKind,
    singular: string,
    store: Store,
    extra: Parameters<typeof builtinDescriptor>[3],
  ): void => catalog.setResource(kind.group, kind.resource, [builtinDescriptor(kind, 'v1', singular, extra, store)]);
  register(roleKind, 'role', stores.roles, { schema: roleSchema, printerColumns: ROLE_COLUMNS });
  register(clusterRoleKind, 'clusterrole', stores.clusterRoles, {
    schema: clusterRoleSchema,
    printerColumns: CLUSTER_ROLE_COLUMNS,
  });
  register(roleBindingKind, 'rolebinding', stores.roleBindings, {
    schema: roleBindingSchema,
    printerColumns: ROLE_BINDING_COLUMNS,
  });
  register(clusterRoleBindingKind, 'clusterrolebinding', stores.clusterRoleBindings, {
    schema: clusterRoleBindingSchema,
    printerColumns: CLUSTER_ROLE_BINDING_COLUMNS,
  });

  // Access reviews: created, answered by the authorizer, never stored.
  const reviews = accessReviews(ask);
  for (const [resource, kind, namespaced] of [
    ['selfsubjectaccessreviews', 'SelfSubjectAccessReview', false],
    ['selfsubjectrulesreviews', 'SelfSubjectRulesReview', false],
    ['subjectaccessreviews', 'SubjectAccessReview', false],
    ['localsubjectaccessreviews', 'LocalSubjectAccessReview', true],
  ] as const) {
    const schema = reviewSchema(`${kind} checks whether a user or group can perform an action.`);
    catalog.setResource(AUTHORIZATION_GROUP, resource, [
      createOnlyDescriptor(AUTHORIZATION_GROUP, resource, kind, namespaced, reviews[resource]!, schema),
    ]);
  }
  const whoami = reviewSchema(
    'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.',
  );
  catalog.setResource(AUTHENTICATION_GROUP, 'selfsubjectreviews', [
    createOnlyDescriptor(
      AUTHENTICATION_GROUP,
      'selfsubjectreviews',
      'SelfSubjectReview',
      false,
      selfSubjectReview,
      whoami,
    ),
  ]);

  index = new RbacIndex(stores, logger.with({ controller: 'rbac-index' }));
  const rbac = indexAuthorizer(index);
  authorizer = authorizerChain(
    deps.modes.map((m) => (m === 'RBAC' ? rbac : m === 'AlwaysAllow' ? alwaysAllow : alwaysDeny)),
  );
  let aggregation: ClusterRoleAggregation | undefined;

  return {
    authorizer: ask,
    async start(isLeader) {
      await ensureBootstrapPolicy(
        stores.clusterRoles,
        stores.clusterRoleBindings,
        logger.with({ controller: 'rbac-bootstrap' }),
      );
      await index!.start();
      aggregation = new ClusterRoleAggregation(
        index!,
        stores.clusterRoles,
        logger.with({ controller: 'clusterrole-aggregation' }),
        isLeader,
      );
      aggregation.resync();
    },
    resync: () => aggregation?.resync(),
    async close() {
      index?.close();
      await aggregation?.close();
    },
  };
}
