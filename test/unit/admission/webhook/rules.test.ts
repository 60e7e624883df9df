// Which webhooks a request is for: kube's predicates (rules, scope, matchPolicy, selectors), table-first.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../apimachinery/errors.js';
import {
  type RuleAttributes,
  isExemptAdmissionConfigurationResource,
  matchRules,
  namespaceLabelSource,
  objectSelectorMatches,
  parseWebhookSelector,
  resourceMatches,
  ruleMatches,
  scopeMatches,
} from '../../../../admission/webhook/rules.js';
import type { RuleWithOperations } from '../../../../admission/webhook/types.js';

const pods = (over: Partial<RuleAttributes> = {}): RuleAttributes => ({
  operation: 'CREATE',
  resource: { group: '', version: 'v1', resource: 'pods' },
  subresource: '',
  namespace: 'default',
  ...over,
});
const deployments = (over: Partial<RuleAttributes> = {}): RuleAttributes =>
  pods({ resource: { group: 'apps', version: 'v1', resource: 'deployments' }, ...over });
const namespaces = (over: Partial<RuleAttributes> = {}): RuleAttributes =>
  pods({ resource: { group: '', version: 'v1', resource: 'namespaces' }, namespace: 'team-a', ...over });
const rule = (over: Partial<RuleWithOperations> = {}): RuleWithOperations => ({
  operations: ['CREATE'],
  apiGroups: [''],
  apiVersions: ['v1'],
  resources: ['pods'],
  ...over,
});

describe('ruleMatches', () => {
  it.each([
    ['exact', rule(), pods(), true],
    ['operation *', rule({ operations: ['*'] }), pods({ operation: 'DELETE' }), true],
    ['other operation', rule({ operations: ['UPDATE', 'DELETE'] }), pods(), false],
    ['no operations', rule({ operations: [] }), pods(), false],
    ['group *', rule({ apiGroups: ['*'], resources: ['deployments'] }), deployments(), true],
    ['other group', rule({ apiGroups: ['batch'] }), deployments(), false],
    ['apps group', rule({ apiGroups: ['apps'], resources: ['deployments'] }), deployments(), true],
    ['version *', rule({ apiVersions: ['*'] }), pods(), true],
    ['other version', rule({ apiVersions: ['v2'] }), pods(), false],
    ['resource *', rule({ resources: ['*'] }), pods(), true],
    ['resource * does not take a subresource', rule({ resources: ['*'] }), pods({ subresource: 'status' }), false],
    ['pods does not take pods/status', rule(), pods({ subresource: 'status' }), false],
    ['pods/status', rule({ resources: ['pods/status'] }), pods({ subresource: 'status' }), true],
    ['pods/status not pods', rule({ resources: ['pods/status'] }), pods(), false],
    ['pods/*', rule({ resources: ['pods/*'] }), pods({ subresource: 'log' }), true],
    ['pods/* takes pods itself', rule({ resources: ['pods/*'] }), pods(), true],
    ['*/status', rule({ resources: ['*/status'] }), pods({ subresource: 'status' }), true],
    ['*/status not scale', rule({ resources: ['*/status'] }), pods({ subresource: 'scale' }), false],
    ['*/*', rule({ resources: ['*/*'] }), pods({ subresource: 'exec' }), true],
    ['other resource', rule({ resources: ['services'] }), pods(), false],
    ['scope Namespaced', rule({ scope: 'Namespaced' }), pods(), true],
    ['scope Cluster on a namespaced request', rule({ scope: 'Cluster' }), pods(), false],
    ['scope *', rule({ scope: '*' }), pods({ namespace: '' }), true],
    ['unknown scope', rule({ scope: 'Galaxy' }), pods(), false],
  ])('%s', (_name, r, a, want) => {
    expect(ruleMatches(r, a)).toBe(want);
  });
});

describe('scopeMatches', () => {
  it.each([
    [undefined, pods(), true],
    ['Namespaced', pods({ namespace: '' }), false],
    ['Cluster', pods({ namespace: '' }), true],
    // A namespace object is cluster-scoped though its request names a namespace (itself).
    ['Cluster', namespaces(), true],
    ['Namespaced', namespaces(), false],
    ['*', namespaces(), true],
  ])('%s on %j', (scope, a, want) => {
    expect(scopeMatches(scope, a)).toBe(want);
  });
});

describe('resourceMatches', () => {
  it.each([
    [['pods'], 'pods', '', true],
    [['pods', 'services'], 'services', '', true],
    [['deployments/scale'], 'deployments', 'scale', true],
    [['deployments/scale'], 'deployments', '', false],
    [[], 'pods', '', false],
    [undefined, 'pods', '', false],
  ])('%j takes %s/%s: %s', (resources, res, sub, want) => {
    expect(resourceMatches(resources, res, sub)).toBe(want);
  });
});

describe('matchRules (matchPolicy)', () => {
  const v1beta1Only = [rule({ apiGroups: ['apps'], apiVersions: ['v1beta1'], resources: ['deployments'] })];
  it.each([
    ['Exact: the request version is not listed', v1beta1Only, 'Exact', deployments(), undefined],
    [
      'Equivalent: another version of the same group and resource',
      v1beta1Only,
      'Equivalent',
      deployments(),
      'equivalent',
    ],
    ['Equivalent is the default', v1beta1Only, undefined, deployments(), 'equivalent'],
    ['an exact match is exact under Equivalent', [rule()], 'Equivalent', pods(), 'exact'],
    [
      'Equivalent still needs the group',
      [rule({ apiGroups: ['extensions'], apiVersions: ['v1beta1'], resources: ['deployments'] })],
      'Equivalent',
      deployments(),
      undefined,
    ],
    [
      'Equivalent with no versions at all',
      [rule({ apiGroups: ['apps'], apiVersions: [], resources: ['deployments'] })],
      'Equivalent',
      deployments(),
      undefined,
    ],
    ['no rules', [], 'Equivalent', pods(), undefined],
    ['rules absent', undefined, 'Exact', pods(), undefined],
  ])('%s', (_name, rules, policy, a, want) => {
    expect(matchRules(rules, policy, a)).toBe(want);
  });
});

describe('isExemptAdmissionConfigurationResource', () => {
  it.each([
    [{ group: 'admissionregistration.k8s.io', name: 'MutatingWebhookConfiguration' }, true],
    [{ group: 'admissionregistration.k8s.io', name: 'ValidatingWebhookConfiguration' }, true],
    [{ group: 'admissionregistration.k8s.io', name: 'ValidatingAdmissionPolicyBinding' }, true],
    [{ group: '', name: 'MutatingWebhookConfiguration' }, false],
    [{ group: '', name: 'Pod' }, false],
  ])('%j: %s', (kind, want) => {
    expect(isExemptAdmissionConfigurationResource(kind)).toBe(want);
  });
});

describe('objectSelectorMatches', () => {
  const obj = (labels?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', ...(labels ? { labels } : {}) },
  });
  it.each([
    ['absent selects everything', undefined, obj(), undefined, true],
    ['empty selects everything, even without objects', {}, undefined, undefined, true],
    ['new object matches', { matchLabels: { app: 'web' } }, obj({ app: 'web' }), undefined, true],
    ['old object matches', { matchLabels: { app: 'web' } }, obj({ app: 'db' }), obj({ app: 'web' }), true],
    ['neither matches', { matchLabels: { app: 'web' } }, obj({ app: 'db' }), obj(), false],
    ['no object (a delete without old object)', { matchLabels: { app: 'web' } }, undefined, undefined, false],
    [
      'DoesNotExist on no labels',
      { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
      obj(),
      undefined,
      true,
    ],
    [
      'NotIn',
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      obj({ env: 'prod' }),
      undefined,
      false,
    ],
  ])('%s', (_name, sel, o, old, want) => {
    expect(objectSelectorMatches(parseWebhookSelector(sel), o, old)).toBe(want);
  });

  it('a bad selector is a 500', () => {
    let err: unknown;
    try {
      parseWebhookSelector({ matchExpressions: [{ key: 'a', operator: 'Near' }] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: "Near" is not a valid label selector operator',
    });
  });
});

describe('namespaceLabelSource', () => {
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'dev' } } };
  it.each([
    ['a namespaced object: its namespace', { ...pods(), name: 'p' }, { lookup: 'default' }],
    [
      'a cluster-scoped object other than a namespace: always matches',
      {
        ...pods({
          namespace: '',
          resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
        }),
        name: 'r',
      },
      undefined,
    ],
    [
      'creating a namespace: its own labels',
      { ...namespaces(), name: 'team-a', object: ns },
      { labels: { env: 'dev' } },
    ],
    [
      'updating a namespace: its own labels',
      { ...namespaces({ operation: 'UPDATE' }), name: 'team-a', object: ns },
      { labels: { env: 'dev' } },
    ],
    [
      'deleting a namespace: looked up',
      { ...namespaces({ operation: 'DELETE' }), name: 'team-a' },
      { lookup: 'team-a' },
    ],
    [
      'a namespace subresource: looked up',
      { ...namespaces({ operation: 'UPDATE', subresource: 'finalize' }), name: 'team-a', object: ns },
      { lookup: 'team-a' },
    ],
    [
      'a namespace request without namespace set: by name',
      { ...namespaces({ operation: 'DELETE', namespace: '' }), name: 'team-b' },
      { lookup: 'team-b' },
    ],
  ])('%s', (_name, a, want) => {
    expect(namespaceLabelSource(a)).toEqual(want);
  });
});
