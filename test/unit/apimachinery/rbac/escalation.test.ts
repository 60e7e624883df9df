// Escalation prevention as kube words it: Covers over broken-down rules, CompactRules and
// CompactString in the Forbidden text, and the escalate/bind checks.
import { describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, Authorizer } from '../../../../apimachinery/authorization.js';
import type { RuleSource } from '../../../../apimachinery/rbac/authorizer.js';
import {
  bindingAuthorized,
  breakdownRule,
  compactRules,
  compactString,
  confirmNoEscalation,
  covers,
  escalationAllowed,
  escalationMessage,
  roleEscalationAuthorized,
  uncoveredRules,
} from '../../../../apimachinery/rbac/escalation.js';
import type { PolicyRule } from '../../../../apimachinery/rbac/types.js';

const bob = { name: 'bob', groups: ['devs', 'system:authenticated'] };

describe('breakdownRule', () => {
  it('splits group × resource × verb × name, and URL × verb', () => {
    expect(
      breakdownRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'secrets'], resourceNames: ['a'] }),
    ).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['list'], resourceNames: ['a'] },
    ]);
    expect(breakdownRule({ verbs: ['get'], nonResourceURLs: ['/a', '/b'] })).toEqual([
      { nonResourceURLs: ['/a'], verbs: ['get'] },
      { nonResourceURLs: ['/b'], verbs: ['get'] },
    ]);
  });
});

describe('covers', () => {
  it.each<[string, PolicyRule[], PolicyRule[], boolean]>([
    [
      'the same rule',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      true,
    ],
    [
      'stars cover everything',
      [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      [{ verbs: ['delete'], apiGroups: ['apps'], resources: ['deployments/scale'] }],
      true,
    ],
    [
      'split across owner rules',
      [
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      ],
      [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }],
      true,
    ],
    [
      'a missing verb',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }],
      false,
    ],
    [
      '*/sub covers that subresource',
      [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }],
      true,
    ],
    [
      '*/sub does not cover the resource',
      [{ verbs: ['get'], apiGroups: [''], resources: ['*/status'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      false,
    ],
    [
      'a named owner does not cover every name',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      false,
    ],
    [
      'an unnamed owner covers a name',
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }],
      true,
    ],
    [
      'URL prefix',
      [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }],
      [{ verbs: ['get'], nonResourceURLs: ['/healthz/etcd'] }],
      true,
    ],
    [
      'URL not covered by a resource rule',
      [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
      false,
    ],
    ['nothing requested', [], [], true],
  ])('%s', (_name, owner, requested, want) => {
    expect(covers(owner, requested)).toBe(want);
  });
});

describe('compactString', () => {
  it.each<[PolicyRule, string]>([
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'],
    [
      { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] },
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get" "list"]}',
    ],
    [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }, '{NonResourceURLs:["/metrics"], Verbs:["get"]}'],
  ])('%j', (rule, want) => {
    expect(compactString(rule)).toBe(want);
  });
});

describe('compactRules', () => {
  it('merges the verbs of simple one-group one-resource rules', () => {
    const got = compactRules([
      { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
    ]);
    expect(got).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['get'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]);
  });
});

describe('escalationMessage', () => {
  const owner: PolicyRule[] = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
  it('is undefined when the owner holds every requested permission', () => {
    expect(escalationMessage(bob, owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])).toBeUndefined();
  });
  it('lists the missing rules compacted and sorted, as kube', () => {
    const msg = escalationMessage(bob, owner, [
      { verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] },
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
    ]);
    expect(msg).toBe(
      'user "bob" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["list" "delete"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
  });
  it('appends resolution errors', () => {
    const msg = escalationMessage(
      { name: 'x', groups: [] },
      [],
      [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      'clusterrole.rbac.authorization.k8s.io "gone" not found',
    );
    expect(msg).toBe(
      'user "x" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [clusterrole.rbac.authorization.k8s.io "gone" not found]',
    );
  });
  it('uncoveredRules gives the broken-down rules', () => {
    expect(uncoveredRules(owner, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }])).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
    ]);
  });
  it('a rule held as it is covers itself, but for the URLs of one that also names resources', () => {
    const rule = { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] };
    expect(uncoveredRules([rule], [{ ...rule }])).toEqual([]);
    // kube's ruleCovers: an owner limited to names never covers a URL piece, which has none.
    const mixed = { ...rule, nonResourceURLs: ['/healthz'] };
    expect(uncoveredRules([mixed], [{ ...mixed }])).toEqual([{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]);
  });
});

describe('confirmNoEscalation over a rule source', () => {
  const src: RuleSource = {
    clusterRoleBindings: () => [
      {
        metadata: { name: 'b' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' },
        subjects: [{ kind: 'User', name: 'bob' }],
      },
    ],
    roleBindings: () => [],
    clusterRole: (name) =>
      name === 'r'
        ? { metadata: { name }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }
        : undefined,
    role: () => undefined,
  };
  it('passes for held rules and names the missing ones', () => {
    expect(
      confirmNoEscalation(src, bob, 'ns', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]),
    ).toBeUndefined();
    expect(confirmNoEscalation(src, bob, 'ns', [{ verbs: ['watch'], apiGroups: [''], resources: ['pods'] }])).toContain(
      '{APIGroups:[""], Resources:["pods"], Verbs:["watch"]}',
    );
  });
});

describe('escalate and bind', () => {
  const asked: AuthorizationAttributes[] = [];
  const authz: Authorizer = {
    authorize: (a) => {
      asked.push(a);
      return { decision: a.name === 'ok' ? 'allow' : 'no-opinion', reason: '' };
    },
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' }),
  };
  it('system:masters may always escalate', () => {
    expect(escalationAllowed({ name: 'x', groups: ['system:masters'] })).toBe(true);
    expect(escalationAllowed(bob)).toBe(false);
  });
  it('asks for escalate on the role being written', () => {
    expect(
      roleEscalationAuthorized(authz, bob, {
        apiGroup: 'rbac.authorization.k8s.io',
        resource: 'roles',
        namespace: 'ns',
        name: 'ok',
      }),
    ).toBe(true);
    expect(asked.at(-1)).toMatchObject({
      verb: 'escalate',
      resource: 'roles',
      namespace: 'ns',
      name: 'ok',
      apiVersion: '*',
      resourceRequest: true,
    });
    expect(roleEscalationAuthorized(authz, bob, { apiGroup: '', resource: 'pods', namespace: 'ns', name: 'ok' })).toBe(
      false,
    );
  });
  it('asks for bind on the referenced role, in the binding namespace', () => {
    expect(
      bindingAuthorized(authz, bob, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ok' }, 'ns'),
    ).toBe(true);
    expect(asked.at(-1)).toMatchObject({ verb: 'bind', resource: 'clusterroles', namespace: 'ns', name: 'ok' });
    expect(
      bindingAuthorized(authz, bob, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'no' }, 'ns'),
    ).toBe(false);
    expect(
      bindingAuthorized(authz, bob, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Other', name: 'ok' }, 'ns'),
    ).toBe(false);
  });
});
