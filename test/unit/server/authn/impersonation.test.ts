import { forbiddenError } from '../../../../server/authz/authorizer.js';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, AuthorizationResult } from '../../../../apimachinery/authorization.js';
import type { UserInfo } from '../../../../apimachinery/user.js';
import {
  asksToImpersonate,
  impersonate,
  impersonationRequest,
  stripImpersonationHeaders,
  unescapeExtraKey,
  type DistinctHeaders,
} from '../../../../server/authn/impersonation.js';

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };

/** A one-line summary of a check, to keep the tables readable. */
const summary = (a: AuthorizationAttributes): string =>
  `${a.verb} ${a.apiGroup}/${a.apiVersion} ${a.resource}${a.subresource ? '/' + a.subresource : ''} ns=${a.namespace} name=${a.name}`;

describe('impersonationRequest / the checks impersonate makes', () => {
  const cases: { name: string; headers: DistinctHeaders; checks: string[] }[] = [
    { name: 'no headers', headers: {}, checks: [] },
    { name: 'an empty user is no request', headers: { 'impersonate-user': [''] }, checks: [] },
    { name: 'a user', headers: { 'impersonate-user': ['bob'] }, checks: ['impersonate / users ns= name=bob'] },
    {
      name: 'a serviceaccount username',
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:builder'] },
      checks: ['impersonate / serviceaccounts ns=ns1 name=builder'],
    },
    {
      name: 'an invalid serviceaccount username is a plain user',
      headers: { 'impersonate-user': ['system:serviceaccount:NS:builder'] },
      checks: ['impersonate / users ns= name=system:serviceaccount:NS:builder'],
    },
    {
      name: 'three parts is a plain user',
      headers: { 'impersonate-user': ['system:serviceaccount:a:b:c'] },
      checks: ['impersonate / users ns= name=system:serviceaccount:a:b:c'],
    },
    {
      name: 'only the first user header counts',
      headers: { 'impersonate-user': ['bob', 'carol'] },
      checks: ['impersonate / users ns= name=bob'],
    },
    {
      name: 'user, repeated groups, extras, uid: in kube order',
      headers: {
        'impersonate-uid': ['1234'],
        'impersonate-extra-scopes': ['view', 'edit'],
        'impersonate-group': ['devs', 'ops, eu'],
        'impersonate-user': ['bob'],
      },
      checks: [
        'impersonate / users ns= name=bob',
        'impersonate / groups ns= name=devs',
        'impersonate / groups ns= name=ops, eu',
        'impersonate authentication.k8s.io/v1 userextras/scopes ns= name=view',
        'impersonate authentication.k8s.io/v1 userextras/scopes ns= name=edit',
        'impersonate authentication.k8s.io/v1 uids ns= name=1234',
      ],
    },
    {
      name: 'extra keys are lower-cased and percent-decoded',
      headers: { 'impersonate-user': ['bob'], 'Impersonate-Extra-Example.Org%2FFoo': ['x'] },
      checks: [
        'impersonate / users ns= name=bob',
        'impersonate authentication.k8s.io/v1 userextras/example.org/foo ns= name=x',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const checks: AuthorizationAttributes[] = [];
      impersonate(alice, c.headers, (a) => (checks.push(a), { decision: 'allow', reason: '' }));
      expect(checks.map(summary)).toEqual(c.checks);
      for (const a of checks) {
        expect(a.user).toBe(alice);
        expect(a.resourceRequest).toBe(true);
      }
    });
  }

  const errors: { name: string; headers: DistinctHeaders; message: string }[] = [
    {
      name: 'groups without a user',
      headers: { 'impersonate-group': ['devs'] },
      message: 'requested [{Group  devs    }] without impersonating a user',
    },
    {
      name: 'extra without a user',
      headers: { 'impersonate-extra-scopes': ['view'] },
      message: 'requested [{UserExtra  view  authentication.k8s.io/v1  scopes}] without impersonating a user',
    },
    {
      name: 'uid without a user',
      headers: { 'impersonate-uid': ['1'] },
      message: 'requested [{UID  1  authentication.k8s.io/v1  }] without impersonating a user',
    },
    {
      name: 'an empty user with groups',
      headers: { 'impersonate-user': [''], 'impersonate-group': ['a', 'b'] },
      message: 'requested [{Group  a    } {Group  b    }] without impersonating a user',
    },
  ];
  for (const c of errors) {
    it(`error: ${c.name}`, () => {
      expect(impersonationRequest(c.headers)).toEqual({ kind: 'error', message: c.message });
      expect(impersonate(alice, c.headers, () => ({ decision: 'allow', reason: '' }))).toEqual({
        kind: 'error',
        message: c.message,
      });
    });
  }
});

describe('asksToImpersonate', () => {
  it.each([
    [['Authorization', 'Bearer x', 'Accept', '*/*'], false],
    [[], false],
    [['Impersonate-User', 'jane'], true],
    [['accept', 'x', 'IMPERSONATE-GROUP', 'g'], true],
    [['impersonate-extra-scopes', 'a'], true],
    [['Impersonate-Uid', '1'], true],
    // A value is not a name.
    [['X-Note', 'Impersonate-User'], false],
    [['Impersonate-', 'x'], false],
  ] as const)('%j: %s', (raw, want) => {
    expect(asksToImpersonate(raw)).toBe(want);
  });
});

describe('unescapeExtraKey', () => {
  it.each([
    ['scopes', 'scopes'],
    ['example.org%2ffoo', 'example.org/foo'],
    ['a%20b', 'a b'],
    ['a+b', 'a+b'],
    ['bad%zz', 'bad%zz'],
    ['trailing%2', 'trailing%2'],
    ['%e2%9c%93', '✓'],
  ])('%s → %s', (input, want) => expect(unescapeExtraKey(input)).toBe(want));
});

describe('impersonate', () => {
  const allowAll = (): AuthorizationResult => ({ decision: 'allow', reason: '' });
  const cases: { name: string; headers: DistinctHeaders; user: UserInfo | undefined }[] = [
    { name: 'nothing asked', headers: {}, user: undefined },
    {
      name: 'a user gets system:authenticated',
      headers: { 'impersonate-user': ['bob'] },
      user: { name: 'bob', groups: ['system:authenticated'] },
    },
    {
      name: 'explicit groups: system:authenticated still added (kube ≥ 1.x)',
      headers: { 'impersonate-user': ['bob'], 'impersonate-group': ['devs'] },
      user: { name: 'bob', groups: ['devs', 'system:authenticated'] },
    },
    {
      name: 'explicit system:authenticated is not added twice',
      headers: { 'impersonate-user': ['bob'], 'impersonate-group': ['system:authenticated', 'devs'] },
      user: { name: 'bob', groups: ['system:authenticated', 'devs'] },
    },
    {
      name: 'explicit system:unauthenticated keeps system:authenticated out',
      headers: { 'impersonate-user': ['bob'], 'impersonate-group': ['system:unauthenticated'] },
      user: { name: 'bob', groups: ['system:unauthenticated'] },
    },
    {
      name: 'system:anonymous gets system:unauthenticated',
      headers: { 'impersonate-user': ['system:anonymous'] },
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    },
    {
      name: 'system:anonymous with system:unauthenticated given',
      headers: { 'impersonate-user': ['system:anonymous'], 'impersonate-group': ['system:unauthenticated'] },
      user: { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    },
    {
      name: 'a serviceaccount gets its groups',
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:builder'] },
      user: {
        name: 'system:serviceaccount:ns1:builder',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
      },
    },
    {
      name: 'a serviceaccount with explicit groups gets only those',
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:builder'], 'impersonate-group': ['g'] },
      user: { name: 'system:serviceaccount:ns1:builder', groups: ['g', 'system:authenticated'] },
    },
    {
      name: 'uid and extras',
      headers: {
        'impersonate-user': ['bob'],
        'impersonate-uid': ['u-1'],
        'impersonate-extra-scopes': ['a', 'b'],
        'impersonate-extra-x%2fy': ['c'],
      },
      user: { name: 'bob', uid: 'u-1', groups: ['system:authenticated'], extra: { scopes: ['a', 'b'], 'x/y': ['c'] } },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const out = impersonate(alice, c.headers, allowAll);
      expect(out).toEqual(c.user ? { kind: 'user', user: c.user } : { kind: 'none' });
    });
  }

  const denied: {
    name: string;
    headers: DistinctHeaders;
    deny: string;
    reason: string;
    message: string;
    details: object;
  }[] = [
    {
      name: 'user',
      headers: { 'impersonate-user': ['bob'] },
      deny: 'users',
      reason: '',
      message:
        'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: 'bob', kind: 'users' },
    },
    {
      name: 'group, with the authorizer reason',
      headers: { 'impersonate-user': ['bob'], 'impersonate-group': ['system:masters'] },
      deny: 'groups',
      reason: 'no RBAC policy matched',
      message:
        'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope: no RBAC policy matched',
      details: { name: 'system:masters', kind: 'groups' },
    },
    {
      name: 'serviceaccount: namespaced',
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:builder'] },
      deny: 'serviceaccounts',
      reason: '',
      message:
        'serviceaccounts "builder" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
      details: { name: 'builder', kind: 'serviceaccounts' },
    },
    {
      name: 'userextras: subresource and group',
      headers: { 'impersonate-user': ['bob'], 'impersonate-extra-scopes': ['view'] },
      deny: 'userextras',
      reason: '',
      message:
        'userextras.authentication.k8s.io "view" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
      details: { name: 'view', group: 'authentication.k8s.io', kind: 'userextras' },
    },
    {
      name: 'uids',
      headers: { 'impersonate-user': ['bob'], 'impersonate-uid': ['u-1'] },
      deny: 'uids',
      reason: '',
      message:
        'uids.authentication.k8s.io "u-1" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      details: { name: 'u-1', group: 'authentication.k8s.io', kind: 'uids' },
    },
    {
      name: 'an empty group name',
      headers: { 'impersonate-user': ['bob'], 'impersonate-group': [''] },
      deny: 'groups',
      reason: '',
      message:
        'groups is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      details: { kind: 'groups' },
    },
  ];
  for (const c of denied) {
    it(`403: ${c.name}`, () => {
      const seen: string[] = [];
      const out = impersonate(alice, c.headers, (a) => {
        seen.push(a.resource);
        return a.resource === c.deny ? { decision: 'no-opinion', reason: c.reason } : { decision: 'allow', reason: '' };
      });
      expect(out.kind).toBe('forbidden');
      if (out.kind !== 'forbidden') return;
      expect(out.error.status).toMatchObject({
        code: 403,
        reason: 'Forbidden',
        message: c.message,
        details: c.details,
      });
      // Checks stop at the first refusal.
      expect(seen[seen.length - 1]).toBe(c.deny);
    });
  }

  it('an explicit deny refuses too', () => {
    const out = impersonate(alice, { 'impersonate-user': ['bob'] }, () => ({
      decision: 'deny',
      reason: 'denied by policy',
    }));
    expect(out.kind === 'forbidden' && out.error.message).toBe(
      'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: denied by policy',
    );
  });

  it('the forbidden message is sanitized, the reason is not', () => {
    const err = forbiddenError(
      {
        user: { name: '<b>', groups: [] },
        verb: 'impersonate',
        resourceRequest: true,
        apiGroup: '',
        apiVersion: '',
        resource: 'users',
        subresource: '',
        namespace: '',
        name: 'x',
        path: '',
      },
      '<r>',
    );
    expect(err.message).toBe(
      'users "x" is forbidden: User "&lt;b&gt;" cannot impersonate resource "users" in API group "" at the cluster scope: <r>',
    );
  });
});

describe('stripImpersonationHeaders', () => {
  it('removes every Impersonate-* header from headers, headersDistinct and rawHeaders', () => {
    const req = {
      headers: {
        'impersonate-user': 'bob',
        'impersonate-group': 'a, b',
        'impersonate-uid': '1',
        'impersonate-extra-x': 'y',
        accept: 'application/json',
      },
      headersDistinct: {
        'impersonate-user': ['bob'],
        'impersonate-group': ['a', 'b'],
        'impersonate-uid': ['1'],
        'impersonate-extra-x': ['y'],
        accept: ['application/json'],
      },
      rawHeaders: [
        'Impersonate-User',
        'bob',
        'Accept',
        'application/json',
        'Impersonate-Group',
        'a',
        'impersonate-group',
        'b',
        'Impersonate-Extra-X',
        'y',
        'Impersonate-Uid',
        '1',
      ],
    } as unknown as IncomingMessage;
    stripImpersonationHeaders(req);
    expect(req.headers).toEqual({ accept: 'application/json' });
    expect(req.headersDistinct).toEqual({ accept: ['application/json'] });
    expect(req.rawHeaders).toEqual(['Accept', 'application/json']);
  });
});
