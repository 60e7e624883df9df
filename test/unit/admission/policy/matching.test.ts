import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../apimachinery/errors.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { Attributes } from '../../../../admission/interface.js';
import {
  type EquivalentResources,
  type MatchRequest,
  type NamedRuleWithOperations,
  matches,
  ruleMatches,
} from '../../../../admission/policy/index.js';
import { attributes } from '../webhook/attributes.js';

function req(over: Partial<Attributes> = {}, version = 'v1'): MatchRequest {
  const deployment = (app: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { app } },
  });
  const a = attributes({
    operation: 'UPDATE',
    kind: { group: 'apps', name: 'Deployment' },
    resource: { group: 'apps', name: 'deployments' },
    namespace: 'ns',
    name: 'd',
    object: deployment('x'),
    oldObject: deployment('old'),
    ...over,
  });
  return {
    a,
    resource: { group: a.resource.group, version, resource: a.resource.name },
    kind: { group: a.kind.group, version, kind: a.kind.name },
  };
}

const rule = (r: Partial<NamedRuleWithOperations>): NamedRuleWithOperations => ({
  apiGroups: ['apps'],
  apiVersions: ['v1'],
  operations: ['UPDATE'],
  resources: ['deployments'],
  ...r,
});

const ruleCases: { name: string; r: NamedRuleWithOperations; q: MatchRequest; want: boolean }[] = [
  { name: 'exact', r: rule({}), q: req(), want: true },
  { name: 'operation *', r: rule({ operations: ['*'] }), q: req(), want: true },
  { name: 'other operation', r: rule({ operations: ['CREATE'] }), q: req(), want: false },
  { name: 'group *', r: rule({ apiGroups: ['*'] }), q: req(), want: true },
  { name: 'other version', r: rule({ apiVersions: ['v2'] }), q: req(), want: false },
  {
    name: 'resource * does not match a subresource',
    r: rule({ resources: ['*'] }),
    q: req({ subresource: 'scale' }),
    want: false,
  },
  {
    name: 'res/* matches a subresource',
    r: rule({ resources: ['deployments/*'] }),
    q: req({ subresource: 'scale' }),
    want: true,
  },
  { name: '*/scale', r: rule({ resources: ['*/scale'] }), q: req({ subresource: 'scale' }), want: true },
  { name: '*/* matches the main resource too', r: rule({ resources: ['*/*'] }), q: req(), want: true },
  { name: 'scope Namespaced', r: rule({ scope: 'Namespaced' }), q: req(), want: true },
  { name: 'scope Cluster', r: rule({ scope: 'Cluster' }), q: req(), want: false },
  {
    name: 'namespaces are cluster-scoped even with a namespace',
    r: { apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['namespaces'], scope: 'Cluster' },
    q: req({
      kind: { group: '', name: 'Namespace' },
      resource: { group: '', name: 'namespaces' },
      namespace: 'ns',
      name: 'ns',
    }),
    want: true,
  },
];

describe('ruleMatches', () => {
  it.each(ruleCases)('$name', ({ r, q, want }) => {
    expect(ruleMatches(r, q.a, q.resource)).toBe(want);
  });
});

const nsGetter = async (name: string): Promise<KubeObject | undefined> =>
  name === 'ns'
    ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { env: 'prod' } } }
    : undefined;

const eq: EquivalentResources = {
  equivalentResourcesFor: (r) =>
    r.group === 'apps' && r.resource === 'deployments'
      ? [r, { group: 'extensions', version: 'v1beta1', resource: 'deployments' }]
      : [r],
  kindFor: (r) => ({ group: r.group, version: r.version, kind: 'Deployment' }),
};

describe('matches', () => {
  it('objectSelector matches the old object too', async () => {
    expect(
      (await matches({ objectSelector: { matchLabels: { app: 'old' } }, resourceRules: [rule({})] }, req(), nsGetter))
        .matches,
    ).toBe(true);
  });
  it('matchPolicy Equivalent finds the other group, Exact does not', async () => {
    const m = { resourceRules: [rule({ apiGroups: ['extensions'], apiVersions: ['v1beta1'] })] };
    const r = await matches({ ...m, matchPolicy: 'Equivalent' }, req(), nsGetter, eq);
    expect(r).toEqual({
      matches: true,
      resource: { group: 'extensions', version: 'v1beta1', resource: 'deployments' },
      kind: { group: 'extensions', version: 'v1beta1', kind: 'Deployment' },
    });
    expect((await matches({ ...m, matchPolicy: 'Exact' }, req(), nsGetter, eq)).matches).toBe(false);
  });
  it('a missing namespace is an error only when the rules match', async () => {
    const m = { namespaceSelector: { matchLabels: { env: 'prod' } }, resourceRules: [rule({})] };
    await expect(matches(m, req({ namespace: 'gone' }), nsGetter)).rejects.toThrow(ApiError);
    await expect(matches(m, req({ namespace: 'gone' }), nsGetter)).rejects.toThrow('namespaces "gone" not found');
    expect(
      (await matches({ ...m, resourceRules: [rule({ operations: ['CREATE'] })] }, req({ namespace: 'gone' }), nsGetter))
        .matches,
    ).toBe(false);
  });
  it('a namespace being created is matched on its own labels', async () => {
    const q = req({
      operation: 'CREATE',
      kind: { group: '', name: 'Namespace' },
      resource: { group: '', name: 'namespaces' },
      namespace: '',
      name: 'new',
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels: { env: 'prod' } } },
    });
    const m = {
      namespaceSelector: { matchLabels: { env: 'prod' } },
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }],
    };
    expect((await matches(m, q, nsGetter)).matches).toBe(true);
  });
  it('cluster-scoped resources ignore the namespaceSelector', async () => {
    const q = req({
      namespace: '',
      kind: { group: 'rbac.authorization.k8s.io', name: 'ClusterRole' },
      resource: { group: 'rbac.authorization.k8s.io', name: 'clusterroles' },
    });
    expect((await matches({ namespaceSelector: { matchLabels: { env: 'nope' } } }, q, nsGetter)).matches).toBe(true);
  });
});
