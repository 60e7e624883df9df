// kube's bootstrap ClusterRoles and bindings as data, their aggregation, and reconciliation
// against what a cluster already holds.
import { describe, expect, it } from 'vitest';
import { aggregateAll } from '../../../../apimachinery/rbac/aggregation.js';
import { authorize, type RuleSource } from '../../../../apimachinery/rbac/authorizer.js';
import { covers } from '../../../../apimachinery/rbac/escalation.js';
import { ruleAllows } from '../../../../apimachinery/rbac/rules.js';
import type { AuthorizationAttributes } from '../../../../apimachinery/authorization.js';
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from '../../../../apimachinery/rbac/types.js';
import { validateClusterRole, validateClusterRoleBinding } from '../../../../apimachinery/rbac/validation.js';
import {
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
  reconcileClusterRole,
  reconcileClusterRoleBinding,
} from '../../../../server/authz/bootstrap-policy.js';

const roles = aggregateAll(bootstrapClusterRoles());
const byName = (name: string): ClusterRole => roles.find((r) => r.metadata.name === name)!;
const rulesOf = (name: string): PolicyRule[] => byName(name).rules ?? [];
const can = (rules: PolicyRule[], verb: string, apiGroup: string, resource: string, subresource = ''): boolean =>
  rules.some((rule) =>
    ruleAllows(
      {
        user: { name: 'u', groups: [] },
        verb,
        resourceRequest: true,
        apiGroup,
        apiVersion: 'v1',
        resource,
        subresource,
        namespace: 'ns',
        name: '',
        path: '',
      },
      rule,
    ),
  );

describe('bootstrap ClusterRoles', () => {
  it('are valid, labelled and auto-updated, sorted by name as kube lists them', () => {
    const names = bootstrapClusterRoles().map((r) => r.metadata.name!);
    expect(names).toEqual([...names].sort());
    for (const r of bootstrapClusterRoles()) {
      expect(validateClusterRole(r)).toEqual([]);
      expect(r.metadata.labels?.['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
      expect(r.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
    }
    for (const name of [
      'cluster-admin',
      'admin',
      'edit',
      'view',
      'system:discovery',
      'system:basic-user',
      'system:public-info-viewer',
      'system:monitoring',
      'system:auth-delegator',
    ]) {
      expect(names).toContain(name);
    }
  });

  it('view reads but does not include secrets', () => {
    expect(can(rulesOf('view'), 'list', '', 'configmaps')).toBe(true);
    expect(can(rulesOf('view'), 'get', '', 'secrets')).toBe(false);
    expect(can(rulesOf('view'), 'create', '', 'configmaps')).toBe(false);
  });

  it('edit aggregates view and writes, secrets included, but not roles', () => {
    expect(covers(rulesOf('edit'), rulesOf('view'))).toBe(true);
    expect(can(rulesOf('edit'), 'get', '', 'secrets')).toBe(true);
    expect(can(rulesOf('edit'), 'create', 'coordination.k8s.io', 'leases')).toBe(true);
    expect(can(rulesOf('edit'), 'create', 'rbac.authorization.k8s.io', 'roles')).toBe(false);
  });

  it("admin aggregates edit's rules and may manage roles and bindings", () => {
    expect(covers(rulesOf('admin'), rulesOf('edit'))).toBe(true);
    expect(can(rulesOf('admin'), 'create', 'rbac.authorization.k8s.io', 'rolebindings')).toBe(true);
    expect(can(rulesOf('admin'), 'create', 'authorization.k8s.io', 'localsubjectaccessreviews')).toBe(true);
    expect(covers(rulesOf('edit'), rulesOf('admin'))).toBe(false);
  });

  it('aggregation is idempotent', () => {
    expect(aggregateAll(roles)).toEqual(roles);
  });
});

describe('bootstrap ClusterRoleBindings', () => {
  const src: RuleSource = {
    clusterRoleBindings: () => bootstrapClusterRoleBindings(),
    roleBindings: () => [],
    clusterRole: (name) => roles.find((r) => r.metadata.name === name),
    role: () => undefined,
  };
  const url = (groups: string[], path: string): AuthorizationAttributes => ({
    user: { name: 'u', groups },
    verb: 'get',
    resourceRequest: false,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
    path,
  });

  it('are valid and bind roles that exist', () => {
    for (const b of bootstrapClusterRoleBindings()) {
      expect(validateClusterRoleBinding(b)).toEqual([]);
      expect(src.clusterRole(b.roleRef.name)).toBeDefined();
    }
  });

  it.each<[string, string[], string, string]>([
    [
      'anyone reads /version',
      ['system:unauthenticated'],
      '/version',
      'RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"',
    ],
    [
      'the authenticated discover',
      ['system:authenticated'],
      '/apis/apps',
      'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    ],
    [
      'masters do anything',
      ['system:masters'],
      '/debug',
      'RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"',
    ],
  ])('%s', (_name, groups, path, reason) => {
    expect(authorize(src, url(groups, path))).toEqual({ decision: 'allow', reason });
  });

  it('the unauthenticated do not discover', () => {
    expect(authorize(src, url(['system:unauthenticated'], '/apis')).decision).toBe('no-opinion');
  });
});

describe('reconcile', () => {
  const view = bootstrapClusterRoles().find((r) => r.metadata.name === 'system:aggregate-to-view')!;

  it('creates what is missing', () => {
    expect(bootstrapClusterRoles().every((r) => reconcileClusterRole(undefined, r).operation === 'create')).toBe(true);
    expect(
      bootstrapClusterRoleBindings().every((b) => reconcileClusterRoleBinding(undefined, b).operation === 'create'),
    ).toBe(true);
  });

  it('leaves what already matches', () => {
    const [storedRoles, storedBindings] = [bootstrapClusterRoles(), bootstrapClusterRoleBindings()];
    expect(bootstrapClusterRoles().every((r, i) => reconcileClusterRole(storedRoles[i], r).operation === 'none')).toBe(
      true,
    );
    expect(
      bootstrapClusterRoleBindings().every(
        (b, i) => reconcileClusterRoleBinding(storedBindings[i], b).operation === 'none',
      ),
    ).toBe(true);
  });

  it('adds missing rules (broken down) and labels to an auto-updated role, keeping its own', () => {
    const existing: ClusterRole = {
      metadata: {
        name: view.metadata.name,
        labels: { mine: 'x' },
        annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
      },
      rules: [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] },
        { verbs: ['get'], apiGroups: ['x.io'], resources: ['things'] },
      ],
    };
    const got = reconcileClusterRole(existing, view);
    expect(got.operation).toBe('update');
    expect(got.object.metadata.labels).toEqual({
      'kubernetes.io/bootstrapping': 'rbac-defaults',
      'rbac.authorization.k8s.io/aggregate-to-view': 'true',
      mine: 'x',
    });
    expect(got.object.rules!.slice(0, 2)).toEqual(existing.rules);
    expect(covers(got.object.rules!, view.rules!)).toBe(true);
    expect(got.missingRules).toContainEqual({ apiGroups: [''], resources: ['pods'], verbs: ['get'] });
  });

  it('leaves a role whose autoupdate is "false"', () => {
    const existing: ClusterRole = {
      metadata: { name: view.metadata.name, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } },
      rules: [],
    };
    const got = reconcileClusterRole(existing, view);
    expect(got).toMatchObject({ operation: 'none', protected: true });
    expect(got.object).toBe(existing);
    expect(got.missingRules.length).toBeGreaterThan(0);
  });

  it('adds missing aggregation selectors', () => {
    const admin = bootstrapClusterRoles().find((r) => r.metadata.name === 'admin')!;
    const existing: ClusterRole = {
      ...structuredClone(admin),
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { custom: 'true' } }] },
    };
    const got = reconcileClusterRole(existing, admin);
    expect(got.operation).toBe('update');
    expect(got.object.aggregationRule?.clusterRoleSelectors).toEqual([
      { matchLabels: { custom: 'true' } },
      { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } },
    ]);
  });

  const publicInfo = bootstrapClusterRoleBindings().find((b) => b.metadata.name === 'system:public-info-viewer')!;

  it('adds missing subjects to a binding, keeping extra ones', () => {
    const existing: ClusterRoleBinding = {
      ...structuredClone(publicInfo),
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'extra' }],
    };
    const got = reconcileClusterRoleBinding(existing, publicInfo);
    expect(got.operation).toBe('update');
    expect(got.object.subjects).toEqual([
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'extra' },
      ...publicInfo.subjects!,
    ]);
  });

  it('recreates a binding whose roleRef changed, unless protected', () => {
    const existing: ClusterRoleBinding = {
      ...structuredClone(publicInfo),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'other' },
    };
    expect(reconcileClusterRoleBinding(existing, publicInfo)).toMatchObject({
      operation: 'recreate',
      object: { roleRef: publicInfo.roleRef },
    });
    existing.metadata.annotations = { 'rbac.authorization.kubernetes.io/autoupdate': 'false' };
    expect(reconcileClusterRoleBinding(existing, publicInfo)).toMatchObject({ operation: 'none', protected: true });
  });
});
