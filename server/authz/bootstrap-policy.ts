// kube 1.33's bootstrap RBAC policy (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, as its
// testdata/cluster-roles.yaml and cluster-role-bindings.yaml print it), the part that is not about
// kube's own components, and kube's reconciliation of it (pkg/registry/rbac/reconciliation) against
// what the cluster already holds. The rules are kube's data, kept whole even where they name
// resources this server does not serve: a role means the same here as in any cluster.
import { cloneJson } from '../../apimachinery/object.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, SYSTEM_PRIVILEGED_GROUP } from '../../apimachinery/user.js';
import {
  AUTOUPDATE_ANNOTATION,
  type ClusterRole,
  type ClusterRoleBinding,
  GROUP_KIND,
  type PolicyRule,
  RBAC_GROUP,
  type Subject,
  rulesOf,
  subjectsOf,
} from '../../apimachinery/rbac/types.js';
import { uncoveredRules } from '../../apimachinery/rbac/escalation.js';
import { deepEqual } from '../../apimachinery/equality.js';
import type { MetaLabelSelector } from '../../apimachinery/selectors/labels.js';

const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

const API_VERSION = `${RBAC_GROUP}/v1`;
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const rule = (apiGroups: string[], resources: string[], verbs: string[]): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
});
const urls = (nonResourceURLs: string[], verbs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

function clusterRole(
  name: string,
  rules: PolicyRule[] | null,
  extraLabels: Record<string, string> = {},
  aggregateFrom?: string,
): ClusterRole {
  const role: ClusterRole = {
    apiVersion: API_VERSION,
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...extraLabels },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    rules,
  };
  if (aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] };
  return role;
}

const group = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: GROUP_KIND, name });

function clusterRoleBinding(name: string, subjects: Subject[]): ClusterRoleBinding {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: {
      name,
      labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults' },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
    subjects,
  };
}

/** A fresh copy of the bootstrap ClusterRoles, in kube's order (by name). */
export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    // The aggregated roles start empty: the aggregation controller fills them.
    clusterRole('admin', null, {}, AGGREGATE_TO_ADMIN),
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('edit', null, { [AGGREGATE_TO_ADMIN]: 'true' }, AGGREGATE_TO_EDIT),
    clusterRole(
      'system:aggregate-to-admin',
      [
        rule(['authorization.k8s.io'], ['localsubjectaccessreviews'], ['create']),
        rule([RBAC_GROUP], ['rolebindings', 'roles'], READ_WRITE),
      ],
      { [AGGREGATE_TO_ADMIN]: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        rule([''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy'], READ),
        rule([''], ['serviceaccounts'], ['impersonate']),
        rule([''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy'], WRITE),
        rule([''], ['pods/eviction'], ['create']),
        rule(
          [''],
          [
            'configmaps',
            'events',
            'persistentvolumeclaims',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'secrets',
            'serviceaccounts',
            'services',
            'services/proxy',
          ],
          WRITE,
        ),
        rule([''], ['serviceaccounts/token'], ['create']),
        rule(
          ['apps'],
          [
            'daemonsets',
            'deployments',
            'deployments/rollback',
            'deployments/scale',
            'replicasets',
            'replicasets/scale',
            'statefulsets',
            'statefulsets/scale',
          ],
          WRITE,
        ),
        rule(['autoscaling'], ['horizontalpodautoscalers'], WRITE),
        rule(['batch'], ['cronjobs', 'jobs'], WRITE),
        rule(
          ['extensions'],
          [
            'daemonsets',
            'deployments',
            'deployments/rollback',
            'deployments/scale',
            'ingresses',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicationcontrollers/scale',
          ],
          WRITE,
        ),
        rule(['policy'], ['poddisruptionbudgets'], WRITE),
        rule(['networking.k8s.io'], ['ingresses', 'networkpolicies'], WRITE),
        rule(['coordination.k8s.io'], ['leases'], READ_WRITE),
      ],
      { [AGGREGATE_TO_EDIT]: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(
          [''],
          [
            'configmaps',
            'endpoints',
            'persistentvolumeclaims',
            'persistentvolumeclaims/status',
            'pods',
            'replicationcontrollers',
            'replicationcontrollers/scale',
            'serviceaccounts',
            'services',
            'services/status',
          ],
          READ,
        ),
        rule(
          [''],
          [
            'bindings',
            'events',
            'limitranges',
            'namespaces/status',
            'pods/log',
            'pods/status',
            'replicationcontrollers/status',
            'resourcequotas',
            'resourcequotas/status',
          ],
          READ,
        ),
        rule([''], ['namespaces'], READ),
        rule(['discovery.k8s.io'], ['endpointslices'], READ),
        rule(
          ['apps'],
          [
            'controllerrevisions',
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'statefulsets',
            'statefulsets/scale',
            'statefulsets/status',
          ],
          READ,
        ),
        rule(['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'], READ),
        rule(['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], READ),
        rule(
          ['extensions'],
          [
            'daemonsets',
            'daemonsets/status',
            'deployments',
            'deployments/scale',
            'deployments/status',
            'ingresses',
            'ingresses/status',
            'networkpolicies',
            'replicasets',
            'replicasets/scale',
            'replicasets/status',
            'replicationcontrollers/scale',
          ],
          READ,
        ),
        rule(['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status'], READ),
        rule(['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies'], READ),
      ],
      { [AGGREGATE_TO_VIEW]: 'true' },
    ),
    clusterRole('system:auth-delegator', [
      rule(['authentication.k8s.io'], ['tokenreviews'], ['create']),
      rule(['authorization.k8s.io'], ['subjectaccessreviews'], ['create']),
    ]),
    clusterRole('system:basic-user', [
      rule(['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], ['create']),
      rule(['authentication.k8s.io'], ['selfsubjectreviews'], ['create']),
    ]),
    clusterRole('system:discovery', [
      urls(
        [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
        ['get'],
      ),
    ]),
    clusterRole('system:monitoring', [
      urls(
        ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'],
        ['get'],
      ),
    ]),
    clusterRole('system:public-info-viewer', [
      urls(['/healthz', '/livez', '/readyz', '/version', '/version/'], ['get']),
    ]),
    clusterRole('system:service-account-issuer-discovery', [
      urls(['/.well-known/openid-configuration', '/openid/v1/jwks'], ['get']),
    ]),
    clusterRole('view', null, { [AGGREGATE_TO_EDIT]: 'true' }, AGGREGATE_TO_VIEW),
  ];
}

/** A fresh copy of the bootstrap ClusterRoleBindings of the roles above, in kube's order. */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding('cluster-admin', [group(SYSTEM_PRIVILEGED_GROUP)]),
    clusterRoleBinding('system:basic-user', [group(ALL_AUTHENTICATED)]),
    clusterRoleBinding('system:discovery', [group(ALL_AUTHENTICATED)]),
    clusterRoleBinding('system:monitoring', [group('system:monitoring')]),
    clusterRoleBinding('system:public-info-viewer', [group(ALL_AUTHENTICATED), group(ALL_UNAUTHENTICATED)]),
    clusterRoleBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  ];
}

/** What reconciliation does with one object (kube's ReconcileOperation). */
type ReconcileOperation = 'none' | 'create' | 'update' | 'recreate';

export interface ReconcileResult<T> {
  operation: ReconcileOperation;
  /** The object to write (the existing one unchanged for 'none'). */
  object: T;
  /** The existing object says autoupdate "false": nothing is written, whatever is missing. */
  protected: boolean;
  missingRules: PolicyRule[];
  missingSubjects: Subject[];
}

const isProtected = (obj: { metadata: { annotations?: Record<string, string> } }): boolean =>
  obj.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';

/** kube's merge(expected, existing): the existing values win. */
const mergeMaps = (
  expected: Record<string, string> | undefined,
  existing: Record<string, string> | undefined,
): Record<string, string> => ({
  ...(expected ?? {}),
  ...(existing ?? {}),
});

function reconcileMeta<T extends ClusterRole | ClusterRoleBinding>(result: T, existing: T, expected: T): boolean {
  const labels = mergeMaps(expected.metadata.labels, existing.metadata.labels);
  const annotations = mergeMaps(expected.metadata.annotations, existing.metadata.annotations);
  const changed =
    !deepEqual(labels, existing.metadata.labels ?? {}) || !deepEqual(annotations, existing.metadata.annotations ?? {});
  result.metadata.labels = labels;
  result.metadata.annotations = annotations;
  return changed;
}

function selectorsMissing(
  existing: readonly MetaLabelSelector[],
  expected: readonly MetaLabelSelector[],
): MetaLabelSelector[] {
  return expected.filter((want) => !existing.some((have) => deepEqual(have, want)));
}

/**
 * kube's computeReconciledRole without removal of extra permissions (what the apiserver's
 * bootstrap does): the existing role keeps what it has and gains the labels, annotations, rules
 * (broken down, as kube adds them) and aggregation selectors it lacks.
 */
export function reconcileClusterRole(
  existing: ClusterRole | undefined,
  expected: ClusterRole,
): ReconcileResult<ClusterRole> {
  if (!existing)
    return {
      operation: 'create',
      object: cloneJson(expected),
      protected: false,
      missingRules: [],
      missingSubjects: [],
    };
  const result = cloneJson(existing);
  let changed = reconcileMeta(result, existing, expected);
  const missingSelectors = selectorsMissing(
    existing.aggregationRule?.clusterRoleSelectors ?? [],
    expected.aggregationRule?.clusterRoleSelectors ?? [],
  );
  if (missingSelectors.length) {
    result.aggregationRule = {
      clusterRoleSelectors: [...(existing.aggregationRule?.clusterRoleSelectors ?? []), ...cloneJson(missingSelectors)],
    };
    changed = true;
  }
  // An aggregated bootstrap role lists no rules, so the controller's rules are never disturbed.
  const missingRules = uncoveredRules(rulesOf(existing), rulesOf(expected));
  if (missingRules.length) {
    result.rules = [...rulesOf(existing), ...missingRules];
    changed = true;
  }
  const prot = isProtected(existing);
  return {
    operation: changed && !prot ? 'update' : 'none',
    object: changed && !prot ? result : existing,
    protected: prot,
    missingRules,
    missingSubjects: [],
  };
}

const sameSubject = (a: Subject, b: Subject): boolean =>
  a.kind === b.kind &&
  a.name === b.name &&
  (a.apiGroup ?? '') === (b.apiGroup ?? '') &&
  (a.namespace ?? '') === (b.namespace ?? '');

/**
 * kube's computeReconciledRoleBinding without removal of extra subjects: missing subjects are
 * added; a different roleRef, which cannot be updated, means delete and create.
 */
export function reconcileClusterRoleBinding(
  existing: ClusterRoleBinding | undefined,
  expected: ClusterRoleBinding,
): ReconcileResult<ClusterRoleBinding> {
  if (!existing)
    return {
      operation: 'create',
      object: cloneJson(expected),
      protected: false,
      missingRules: [],
      missingSubjects: [],
    };
  const prot = isProtected(existing);
  const result = cloneJson(existing);
  let changed = reconcileMeta(result, existing, expected);
  if (!deepEqual(existing.roleRef, expected.roleRef)) {
    result.roleRef = cloneJson(expected.roleRef);
    result.subjects = cloneJson(subjectsOf(expected));
    return {
      operation: prot ? 'none' : 'recreate',
      object: prot ? existing : result,
      protected: prot,
      missingRules: [],
      missingSubjects: subjectsOf(expected),
    };
  }
  const missingSubjects = subjectsOf(expected).filter(
    (want) => !subjectsOf(existing).some((have) => sameSubject(have, want)),
  );
  if (missingSubjects.length) {
    result.subjects = [...subjectsOf(existing), ...cloneJson(missingSubjects)];
    changed = true;
  }
  return {
    operation: changed && !prot ? 'update' : 'none',
    object: changed && !prot ? result : existing,
    protected: prot,
    missingRules: [],
    missingSubjects,
  };
}
