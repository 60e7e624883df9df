// The RBAC authorizer over a static rule source: kube's reasons word for word, cluster bindings
// before namespace bindings, missing roles as resolution errors, and RulesFor.
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../../../../apimachinery/authorization.js';
import { authorize, rbacAuthorizer, rulesFor, type RuleSource } from '../../../../apimachinery/rbac/authorizer.js';
import type {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  Subject,
} from '../../../../apimachinery/rbac/types.js';
import type { UserInfo } from '../../../../apimachinery/user.js';

const G = 'rbac.authorization.k8s.io';
const clusterRole = (name: string, rules: ClusterRole['rules']): ClusterRole => ({ metadata: { name }, rules });
const role = (ns: string, name: string, rules: Role['rules']): Role => ({ metadata: { name, namespace: ns }, rules });
const crb = (name: string, roleName: string, subjects: Subject[]): ClusterRoleBinding => ({
  metadata: { name },
  roleRef: { apiGroup: G, kind: 'ClusterRole', name: roleName },
  subjects,
});
const rb = (ns: string, name: string, kind: string, roleName: string, subjects: Subject[]): RoleBinding => ({
  metadata: { name, namespace: ns },
  roleRef: { apiGroup: G, kind, name: roleName },
  subjects,
});

function source(
  roles: Role[],
  roleBindings: RoleBinding[],
  clusterRoles: ClusterRole[],
  clusterRoleBindings: ClusterRoleBinding[],
): RuleSource {
  return {
    clusterRoleBindings: () => clusterRoleBindings,
    roleBindings: (ns) => roleBindings.filter((b) => b.metadata.namespace === ns),
    clusterRole: (name) => clusterRoles.find((r) => r.metadata.name === name),
    role: (ns, name) => roles.find((r) => r.metadata.namespace === ns && r.metadata.name === name),
  };
}

const src = source(
  [role('ns1', 'pod-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])],
  [
    rb('ns1', 'read-pods', 'Role', 'pod-reader', [{ kind: 'User', apiGroup: G, name: 'alice' }]),
    rb('ns1', 'sa-view', 'ClusterRole', 'view', [{ kind: 'ServiceAccount', name: 'builder' }]),
    rb('ns1', 'dangling', 'Role', 'gone', [{ kind: 'Group', apiGroup: G, name: 'devs' }]),
  ],
  [
    clusterRole('cluster-admin', [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ]),
    clusterRole('view', [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] }]),
    clusterRole('system:discovery', [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }]),
  ],
  [
    crb('cluster-admin', 'cluster-admin', [{ kind: 'Group', apiGroup: G, name: 'system:masters' }]),
    crb('system:discovery', 'system:discovery', [{ kind: 'Group', apiGroup: G, name: 'system:authenticated' }]),
    crb('missing', 'no-such-role', [{ kind: 'Group', apiGroup: G, name: 'devs' }]),
  ],
);

const req = (
  user: UserInfo,
  verb: string,
  resource: string,
  namespace: string,
  extra: Partial<AuthorizationAttributes> = {},
): AuthorizationAttributes => ({
  user,
  verb,
  resourceRequest: true,
  apiGroup: '',
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace,
  name: '',
  path: '',
  ...extra,
});

const admin: UserInfo = { name: 'root', groups: ['system:masters', 'system:authenticated'] };
const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const dev: UserInfo = { name: 'dan', groups: ['devs', 'system:authenticated'] };
const builder: UserInfo = {
  name: 'system:serviceaccount:ns1:builder',
  groups: ['system:serviceaccounts', 'system:authenticated'],
};

describe('authorize', () => {
  it.each<[string, AuthorizationAttributes, string, string]>([
    [
      'system:masters through cluster-admin',
      req(admin, 'delete', 'secrets', 'x'),
      'allow',
      'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"',
    ],
    [
      'a Role in its namespace',
      req(alice, 'get', 'pods', 'ns1'),
      'allow',
      'RBAC: allowed by RoleBinding "read-pods/ns1" of Role "pod-reader" to User "alice"',
    ],
    ['the Role does not reach another namespace', req(alice, 'get', 'pods', 'ns2'), 'no-opinion', ''],
    ['nor a cluster-wide request', req(alice, 'get', 'pods', ''), 'no-opinion', ''],
    [
      'a ClusterRole bound in a namespace, to a ServiceAccount defaulted to it',
      req(builder, 'list', 'configmaps', 'ns1'),
      'allow',
      'RBAC: allowed by RoleBinding "sa-view/ns1" of ClusterRole "view" to ServiceAccount "builder/ns1"',
    ],
    [
      'a non-resource URL',
      req(alice, 'get', '', '', { resourceRequest: false, path: '/api/v1' }),
      'allow',
      'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    ],
    [
      'a binding to a missing role is an error, not a denial',
      req(dev, 'get', 'pods', ''),
      'no-opinion',
      'RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found',
    ],
    [
      'both missing roles, aggregated',
      req(dev, 'get', 'pods', 'ns1'),
      'no-opinion',
      'RBAC: [clusterrole.rbac.authorization.k8s.io "no-such-role" not found, role.rbac.authorization.k8s.io "gone" not found]',
    ],
  ])('%s', (_name, attrs, decision, reason) => {
    expect(authorize(src, attrs)).toEqual({ decision, reason });
  });

  it('stops at the first allowing rule, even past a missing role', () => {
    const both: UserInfo = { name: 'alice', groups: ['devs'] };
    expect(authorize(src, req(both, 'get', 'pods', 'ns1')).decision).toBe('allow');
  });
});

describe('rulesFor', () => {
  it('lists cluster-wide rules, then the namespace rules, split by kind', () => {
    const got = rbacAuthorizer(src).rulesFor(alice, 'ns1');
    expect(got).toEqual({
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
      incomplete: false,
      evaluationError: '',
    });
  });

  it("is incomplete, with kube's error text, when a bound role is missing", () => {
    const got = rulesFor(src, dev, 'ns1');
    expect(got.incomplete).toBe(true);
    expect(got.evaluationError).toBe(
      '[clusterrole.rbac.authorization.k8s.io "no-such-role" not found, role.rbac.authorization.k8s.io "gone" not found]',
    );
    expect(got.nonResourceRules).toHaveLength(1);
  });
});
