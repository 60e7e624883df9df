// The four RBAC kinds' strategies: validation wired for create and update, names as path
// segments, kube's table columns and cells.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../../apimachinery/object.js';
import { formatFieldError } from '../../../../../apimachinery/field-errors.js';
import { buildTable } from '../../../../../server/endpoints/table.js';
import {
  CLUSTER_ROLE_BINDING_COLUMNS,
  ROLE_BINDING_COLUMNS,
  ROLE_COLUMNS,
  clusterRoleBindingStrategy,
  clusterRoleStrategy,
  createdAt,
  roleBindingStrategy,
  roleStrategy,
} from '../../../../../server/registry/builtin/rbac.js';
import { runStep } from '../../../../../apimachinery/structured-merge/trampoline.js';

const G = 'rbac.authorization.k8s.io';
const ctx = { dryRun: false };
const obj = (kind: string, fields: Record<string, unknown>, namespace?: string): KubeObject =>
  ({
    apiVersion: `${G}/v1`,
    kind,
    metadata: { name: 'x', ...(namespace ? { namespace } : {}), creationTimestamp: '2024-05-01T10:00:00Z' },
    ...fields,
  }) as KubeObject;

describe('kind infos', () => {
  it.each([
    [roleStrategy, 'roles', true],
    [clusterRoleStrategy, 'clusterroles', false],
    [roleBindingStrategy, 'rolebindings', true],
    [clusterRoleBindingStrategy, 'clusterrolebindings', false],
  ] as const)('%#', (strategy, resource, namespaced) => {
    expect(strategy.kind).toMatchObject({ group: G, resource, namespaced });
    expect(strategy.update.allowUnconditional).toBe(true);
  });
});

describe('names', () => {
  it.each<[string, string[]]>([
    ['system:aggregate-to-view', []],
    ['Upper_Case ok', []],
    ['a/b', ["may not contain '/'"]],
    ['..', ["may not be '..'"]],
  ])('%s', (name, want) => {
    for (const s of [roleStrategy, clusterRoleStrategy, roleBindingStrategy, clusterRoleBindingStrategy])
      expect(s.create.validateName(name)).toEqual(want);
  });
});

describe('validation through the strategies', () => {
  it('Role rules may not name URLs; ClusterRole rules may', () => {
    const rules = [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }];
    expect(runStep(roleStrategy.create.validate(obj('Role', { rules }, 'ns'), ctx)).map(formatFieldError)).toEqual([
      'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: namespaced rules cannot apply to non-resource URLs',
    ]);
    expect(runStep(clusterRoleStrategy.create.validate(obj('ClusterRole', { rules }), ctx))).toEqual([]);
  });

  it('a binding keeps its roleRef', () => {
    const before = obj(
      'RoleBinding',
      { roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' }, subjects: [] },
      'ns',
    );
    const after = obj('RoleBinding', { roleRef: { apiGroup: G, kind: 'Role', name: 'view' }, subjects: [] }, 'ns');
    expect(runStep(roleBindingStrategy.create.validate(after, ctx))).toEqual([]);
    expect(runStep(roleBindingStrategy.update.validate(after, before, ctx)).map(formatFieldError)).toEqual([
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"view"}: cannot change roleRef',
    ]);
    expect(runStep(clusterRoleBindingStrategy.update.validate(after, before, ctx)).map(formatFieldError)).toEqual([
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"view"}: cannot change roleRef',
    ]);
  });

  it('a ClusterRoleBinding needs ServiceAccount namespaces; a RoleBinding defaults them', () => {
    const b = obj('ClusterRoleBinding', {
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
    });
    expect(runStep(clusterRoleBindingStrategy.create.validate(b, ctx)).map(formatFieldError)).toEqual([
      'subjects[0].namespace: Required value',
    ]);
    expect(runStep(roleBindingStrategy.create.validate(b, ctx))).toEqual([]);
  });
});

describe('tables', () => {
  const now = Date.parse('2024-05-01T10:05:00Z');

  it('roles show NAME and CREATED AT as a timestamp', () => {
    const t = buildTable([obj('Role', { rules: [] }, 'ns')], ROLE_COLUMNS, {}, 'None', now);
    expect((t['columnDefinitions'] as Array<{ name: string; type: string }>).map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Created At', 'date'],
    ]);
    expect((t['rows'] as Array<{ cells: unknown[] }>)[0]!.cells).toEqual(['x', '2024-05-01T10:00:00Z']);
  });

  it('createdAt prints UTC without fractions, and Go zero time when absent', () => {
    expect(createdAt({ metadata: { creationTimestamp: '2024-05-01T12:00:00+02:00' } })).toBe('2024-05-01T10:00:00Z');
    expect(createdAt({ metadata: {} })).toBe('0001-01-01T00:00:00Z');
  });

  it('bindings show ROLE, AGE, and the wide subject columns', () => {
    const b = obj(
      'RoleBinding',
      {
        roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' },
        subjects: [
          { kind: 'User', apiGroup: G, name: 'alice' },
          { kind: 'User', apiGroup: G, name: 'bob' },
          { kind: 'Group', apiGroup: G, name: 'devs' },
          { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
        ],
      },
      'ns',
    );
    const t = buildTable([b], ROLE_BINDING_COLUMNS, {}, 'None', now);
    expect(
      (t['columnDefinitions'] as Array<{ name: string; priority: number }>).map((c) => [c.name, c.priority]),
    ).toEqual([
      ['Name', 0],
      ['Role', 0],
      ['Age', 0],
      ['Users', 1],
      ['Groups', 1],
      ['ServiceAccounts', 1],
    ]);
    expect((t['rows'] as Array<{ cells: unknown[] }>)[0]!.cells).toEqual([
      'x',
      'ClusterRole/view',
      '5m',
      'alice, bob',
      'devs',
      'ci/builder',
    ]);
  });

  it("ClusterRoleBindings describe their subjects as the clusterRoleBinding's", () => {
    expect(CLUSTER_ROLE_BINDING_COLUMNS.map((c) => c.description).slice(2)).toEqual([
      'Users in the clusterRoleBinding',
      'Groups in the clusterRoleBinding',
      'ServiceAccounts in the clusterRoleBinding',
    ]);
    const t = buildTable(
      [obj('ClusterRoleBinding', { roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cluster-admin' } })],
      CLUSTER_ROLE_BINDING_COLUMNS,
      {},
      'None',
      now,
    );
    expect((t['rows'] as Array<{ cells: unknown[] }>)[0]!.cells).toEqual([
      'x',
      'ClusterRole/cluster-admin',
      '5m',
      '',
      '',
      '',
    ]);
  });
});

describe('defaulting', () => {
  it('bindings get the RBAC group on roleRef and User/Group subjects, then validate', () => {
    for (const s of [roleBindingStrategy, clusterRoleBindingStrategy]) {
      const b = obj('RoleBinding', {
        roleRef: { kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'alice' }],
      });
      s.canonicalize(b, ctx);
      expect(b['roleRef']).toEqual({ apiGroup: G, kind: 'ClusterRole', name: 'view' });
      expect(b['subjects']).toEqual([{ kind: 'User', name: 'alice', apiGroup: G }]);
      expect(runStep(s.create.validate(b, ctx))).toEqual([]);
    }
  });
});
