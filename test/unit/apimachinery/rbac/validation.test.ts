// pkg/apis/rbac/validation's rules and texts, for the four kinds.
import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';
import type { ClusterRole, PolicyRule, RoleBinding, Subject } from '../../../../apimachinery/rbac/types.js';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateClusterRoleBindingUpdate,
  validateClusterRoleUpdate,
  validateRole,
  validateRoleBinding,
  validateRoleBindingUpdate,
} from '../../../../apimachinery/rbac/validation.js';

const G = 'rbac.authorization.k8s.io';
const fmt = (errs: Parameters<typeof formatFieldError>[0][]): string[] => errs.map(formatFieldError);

describe('policy rules', () => {
  it.each<[string, PolicyRule, string[], string[]]>([
    ['a resource rule', { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, [], []],
    [
      'no verbs',
      { verbs: [], apiGroups: [''], resources: ['pods'] },
      ['rules[0].verbs: Required value: verbs must contain at least one value'],
      ['rules[0].verbs: Required value: verbs must contain at least one value'],
    ],
    [
      'no api groups or resources',
      { verbs: ['get'] },
      [
        'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
        'rules[0].resources: Required value: resource rules must supply at least one resource',
      ],
      [
        'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
        'rules[0].resources: Required value: resource rules must supply at least one resource',
      ],
    ],
    [
      'names over several resources',
      { verbs: ['get'], apiGroups: [''], resources: ['pods', 'secrets'], resourceNames: ['a'] },
      ['rules[0].resourceNames: Required value: resource names cannot apply to multiple resources'],
      ['rules[0].resourceNames: Required value: resource names cannot apply to multiple resources'],
    ],
    [
      'a URL rule',
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
      [
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: namespaced rules cannot apply to non-resource URLs',
      ],
      [],
    ],
    [
      'a URL rule with resources',
      { verbs: ['get'], apiGroups: [''], nonResourceURLs: ['/metrics'] },
      [
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: namespaced rules cannot apply to non-resource URLs',
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and non-resource URLs',
      ],
      [
        'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and non-resource URLs',
      ],
    ],
  ])('%s', (_name, rule, inRole, inClusterRole) => {
    expect(fmt(validateRole({ metadata: { name: 'r', namespace: 'ns' }, rules: [rule] }))).toEqual(inRole);
    expect(fmt(validateClusterRole({ metadata: { name: 'r' }, rules: [rule] }))).toEqual(inClusterRole);
  });

  it('rules: null is no rules', () => {
    expect(validateRole({ metadata: { name: 'r' }, rules: null })).toEqual([]);
  });
});

describe('aggregation rules', () => {
  const cr = (aggregationRule: ClusterRole['aggregationRule']): ClusterRole => ({
    metadata: { name: 'agg' },
    aggregationRule,
  });
  it.each<[string, ClusterRole['aggregationRule'], string[]]>([
    ['a selector', { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate': 'true' } }] }, []],
    [
      'no selectors',
      { clusterRoleSelectors: [] },
      [
        'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
      ],
    ],
    [
      'In without values',
      { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] },
      [
        "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
      ],
    ],
    [
      'Exists with values',
      { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }] },
      [
        "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
        'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
      ],
    ],
  ])('%s', (_name, rule, want) => {
    expect(fmt(validateClusterRole(cr(rule)))).toEqual(want);
  });

  it('an invalid label value may stay on update when it was already stored', () => {
    const bad = cr({
      clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['bad value'] }] }],
    });
    expect(fmt(validateClusterRole(bad))[0]).toMatch(
      /^aggregationRule\.clusterRoleSelectors\[0\]\.matchExpressions\[0\]\.values\[0\]: Invalid value: "bad value": /,
    );
    const update = fmt(validateClusterRoleUpdate(bad, bad));
    expect(update.some((e) => e.includes('.values[0]'))).toBe(false);
  });
});

const binding = (kind: string, name: string, subjects: Subject[], apiGroup = G): RoleBinding => ({
  metadata: { name: 'b', namespace: 'ns' },
  roleRef: { apiGroup, kind, name },
  subjects,
});

describe('bindings', () => {
  it.each<[string, RoleBinding, string[], string[]]>([
    [
      'a ClusterRole to a group',
      binding('ClusterRole', 'view', [{ kind: 'Group', apiGroup: G, name: 'devs' }]),
      [],
      [],
    ],
    [
      'a Role',
      binding('Role', 'r', []),
      [],
      ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'],
    ],
    [
      'another kind',
      binding('Thing', 'r', []),
      ['roleRef.kind: Unsupported value: "Thing": supported values: "Role", "ClusterRole"'],
      ['roleRef.kind: Unsupported value: "Thing": supported values: "ClusterRole"'],
    ],
    [
      'another group',
      binding('ClusterRole', 'r', [], 'x.io'),
      ['roleRef.apiGroup: Unsupported value: "x.io": supported values: "rbac.authorization.k8s.io"'],
      ['roleRef.apiGroup: Unsupported value: "x.io": supported values: "rbac.authorization.k8s.io"'],
    ],
    [
      'no role name',
      binding('ClusterRole', '', []),
      ['roleRef.name: Required value'],
      ['roleRef.name: Required value'],
    ],
    [
      'a role name with a slash',
      binding('ClusterRole', 'a/b', []),
      ['roleRef.name: Invalid value: "a/b": may not contain \'/\''],
      ['roleRef.name: Invalid value: "a/b": may not contain \'/\''],
    ],
    [
      'a ServiceAccount without a namespace',
      binding('ClusterRole', 'v', [{ kind: 'ServiceAccount', name: 'sa' }]),
      [],
      ['subjects[0].namespace: Required value'],
    ],
    [
      'a ServiceAccount with an api group',
      binding('ClusterRole', 'v', [{ kind: 'ServiceAccount', apiGroup: G, name: 'sa', namespace: 'ns' }]),
      ['subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""'],
      ['subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""'],
    ],
    [
      'a ServiceAccount with a bad name',
      binding('ClusterRole', 'v', [{ kind: 'ServiceAccount', name: 'Bad_Name', namespace: 'ns' }]),
      [
        "subjects[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
      [
        "subjects[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      'a user without the api group',
      binding('ClusterRole', 'v', [{ kind: 'User', name: 'bob' }]),
      ['subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"'],
      ['subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"'],
    ],
    [
      'a group without a name',
      binding('ClusterRole', 'v', [{ kind: 'Group', apiGroup: G, name: '' }]),
      ['subjects[0].name: Required value', 'subjects[0].name: Invalid value: "": group name cannot be empty'],
      ['subjects[0].name: Required value', 'subjects[0].name: Invalid value: "": group name cannot be empty'],
    ],
    [
      'an unknown subject kind',
      binding('ClusterRole', 'v', [{ kind: 'Robot', name: 'r2' }]),
      ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'],
      ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'],
    ],
  ])('%s', (_name, b, asRoleBinding, asClusterRoleBinding) => {
    expect(fmt(validateRoleBinding(b))).toEqual(asRoleBinding);
    expect(fmt(validateClusterRoleBinding(b))).toEqual(asClusterRoleBinding);
  });

  it('roleRef is immutable', () => {
    const old = binding('ClusterRole', 'view', []);
    const changed = binding('ClusterRole', 'edit', []);
    const want = [
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    ];
    expect(fmt(validateRoleBindingUpdate(changed, old))).toEqual(want);
    expect(fmt(validateClusterRoleBindingUpdate(changed, old))).toEqual(want);
    expect(validateRoleBindingUpdate(old, old)).toEqual([]);
  });
});
