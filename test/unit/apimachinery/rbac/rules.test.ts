// kube's RuleAllows (plugin/pkg/auth/authorizer/rbac/rbac.go) and appliesToUser, case by case.
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes } from '../../../../apimachinery/authorization.js';
import { appliesTo, ruleAllows } from '../../../../apimachinery/rbac/rules.js';
import { makeServiceAccountUsername } from '../../../../apimachinery/user.js';
import type { PolicyRule, Subject } from '../../../../apimachinery/rbac/types.js';
import type { UserInfo } from '../../../../apimachinery/user.js';

const bob: UserInfo = { name: 'bob', groups: ['devs', 'system:authenticated'] };

const resourceReq = (
  verb: string,
  apiGroup: string,
  resource: string,
  subresource = '',
  name = '',
): AuthorizationAttributes => ({
  user: bob,
  verb,
  resourceRequest: true,
  apiGroup,
  apiVersion: 'v1',
  resource,
  subresource,
  namespace: 'ns',
  name,
  path: '',
});
const urlReq = (verb: string, path: string): AuthorizationAttributes => ({
  user: bob,
  verb,
  resourceRequest: false,
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
  path,
});

describe('ruleAllows', () => {
  const pods: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
  it.each<[string, PolicyRule, AuthorizationAttributes, boolean]>([
    ['exact verb, group, resource', pods, resourceReq('get', '', 'pods'), true],
    ['another verb', pods, resourceReq('delete', '', 'pods'), false],
    ['another group', pods, resourceReq('get', 'apps', 'pods'), false],
    ['a subresource is not the resource', pods, resourceReq('get', '', 'pods', 'log'), false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, resourceReq('escalate', '', 'pods'), true],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['pods'] }, resourceReq('get', 'x.io', 'pods'), true],
    [
      'resource * covers subresources',
      { verbs: ['get'], apiGroups: [''], resources: ['*'] },
      resourceReq('get', '', 'pods', 'log'),
      true,
    ],
    [
      'resource/sub',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      resourceReq('get', '', 'pods', 'log'),
      true,
    ],
    [
      '*/sub matches the subresource of any resource',
      { verbs: ['get'], apiGroups: [''], resources: ['*/status'] },
      resourceReq('get', '', 'nodes', 'status'),
      true,
    ],
    [
      '*/sub is not the resource itself',
      { verbs: ['get'], apiGroups: [''], resources: ['*/status'] },
      resourceReq('get', '', 'nodes'),
      false,
    ],
    [
      '*/sub with a longer subresource',
      { verbs: ['get'], apiGroups: [''], resources: ['*/status'] },
      resourceReq('get', '', 'nodes', 'xstatus'),
      false,
    ],
    [
      'res/* is literal, not a wildcard',
      { verbs: ['get'], apiGroups: [''], resources: ['pods/*'] },
      resourceReq('get', '', 'pods', 'log'),
      false,
    ],
    [
      'resourceNames: the listed name',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      resourceReq('get', '', 'pods', '', 'a'),
      true,
    ],
    [
      'resourceNames: another name',
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      resourceReq('get', '', 'pods', '', 'b'),
      false,
    ],
    [
      'resourceNames never allow a list (no name)',
      { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      resourceReq('list', '', 'pods'),
      false,
    ],
    [
      'resourceNames never allow a create (no name)',
      { verbs: ['create'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      resourceReq('create', '', 'pods'),
      false,
    ],
    ['a resource rule never allows a URL', pods, urlReq('get', '/healthz'), false],
    ['URL exact', { verbs: ['get'], nonResourceURLs: ['/healthz'] }, urlReq('get', '/healthz'), true],
    [
      'URL exact is not a prefix',
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      urlReq('get', '/healthz/etcd'),
      false,
    ],
    ['URL trailing *', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, urlReq('get', '/healthz/etcd'), true],
    ['URL prefix* without a slash', { verbs: ['get'], nonResourceURLs: ['/api*'] }, urlReq('get', '/apis/x'), true],
    ['URL * matches every path', { verbs: ['get'], nonResourceURLs: ['*'] }, urlReq('get', '/metrics'), true],
    ['URL with another verb', { verbs: ['get'], nonResourceURLs: ['*'] }, urlReq('post', '/metrics'), false],
    [
      'a URL rule never allows a resource',
      { verbs: ['*'], nonResourceURLs: ['*'] },
      resourceReq('get', '', 'pods'),
      false,
    ],
  ])('%s', (_name, rule, attrs, want) => {
    expect(ruleAllows(attrs, rule)).toBe(want);
  });
});

describe('appliesTo', () => {
  const sa = { name: makeServiceAccountUsername('ns1', 'builder'), groups: ['system:serviceaccounts'] };
  it.each<[string, UserInfo, Subject, string, boolean]>([
    ['User by name', bob, { kind: 'User', name: 'bob' }, '', true],
    ['User of another name', bob, { kind: 'User', name: 'alice' }, '', false],
    ['Group the user is in', bob, { kind: 'Group', name: 'devs' }, '', true],
    ['Group the user is not in', bob, { kind: 'Group', name: 'ops' }, '', false],
    ['ServiceAccount with its namespace', sa, { kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' }, '', true],
    ['ServiceAccount defaulted to the binding namespace', sa, { kind: 'ServiceAccount', name: 'builder' }, 'ns1', true],
    ['ServiceAccount in another namespace', sa, { kind: 'ServiceAccount', name: 'builder' }, 'ns2', false],
    ['ServiceAccount without any namespace', sa, { kind: 'ServiceAccount', name: 'builder' }, '', false],
    [
      'a user named like the ServiceAccount is one',
      { name: 'system:serviceaccount:ns1:builder', groups: [] },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' },
      '',
      true,
    ],
    ['an unknown kind', bob, { kind: 'Robot', name: 'bob' }, '', false],
  ])('%s', (_name, user, subject, ns, want) => {
    expect(appliesTo(user, subject, ns)).toBe(want);
  });
});
