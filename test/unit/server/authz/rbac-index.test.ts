// RBAC's index over real stores on SQLite: bindings found by subject (user, group, ServiceAccount,
// a ServiceAccount subject without namespace in its binding's), decisions remembered until any RBAC
// object changes, and roles and bindings removed by a relist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthorizationAttributes, Authorizer } from '../../../../apimachinery/authorization.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { UserInfo } from '../../../../apimachinery/user.js';
import { silentLogger } from '../../../../apimachinery/log.js';
import { type RbacStores, RbacIndex, indexAuthorizer } from '../../../../server/authz/rbac-index.js';
import { rbacStores } from '../../../helpers/rbac-stores.js';
import { createSqliteFixture } from '../../../helpers/sqlite-fixture.js';

const WRITE = { dryRun: false };
const RBAC = { apiVersion: 'rbac.authorization.k8s.io/v1' };
const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let stores: RbacStores;
let index: RbacIndex;
let authz: Authorizer;

const ask = (user: UserInfo, verb: string, resource: string, namespace: string): AuthorizationAttributes => ({
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
});
const decide = (a: AuthorizationAttributes): string => authz.authorize(a).decision;

beforeAll(async () => {
  fixture = await createSqliteFixture();
  const storage = await fixture.open();
  stores = rbacStores(storage);
  await stores.clusterRoles.create(
    undefined,
    {
      ...RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'cm-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    } as KubeObject,
    WRITE,
  );
  await stores.roles.create(
    'a',
    {
      ...RBAC,
      kind: 'Role',
      metadata: { name: 'secret-reader', namespace: 'a' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    } as KubeObject,
    WRITE,
  );
  index = new RbacIndex(stores, silentLogger);
  await index.start();
  authz = indexAuthorizer(index);
});
afterAll(async () => {
  index.close();
  for (const s of Object.values(stores)) s.close();
  await fixture.teardown();
});

const binding = (
  namespace: string,
  name: string,
  role: { apiGroup: string; kind: string; name: string },
  subjects: unknown[],
): KubeObject =>
  ({ ...RBAC, kind: 'RoleBinding', metadata: { name, namespace }, roleRef: role, subjects }) as KubeObject;

describe('RbacIndex', () => {
  it('finds bindings by user, group and ServiceAccount (its namespace defaulting to the binding’s)', async () => {
    const carol: UserInfo = { name: 'carol', groups: ['devs'] };
    const sa: UserInfo = { name: 'system:serviceaccount:a:ctl', groups: ['system:serviceaccounts'] };
    expect(decide(ask(carol, 'get', 'configmaps', 'a'))).toBe('no-opinion');
    await stores.roleBindings.create(
      'a',
      binding('a', 'devs-read', ref('ClusterRole', 'cm-reader'), [
        { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      ]),
      WRITE,
    );
    await stores.roleBindings.create(
      'a',
      binding('a', 'ctl-secrets', ref('Role', 'secret-reader'), [{ kind: 'ServiceAccount', name: 'ctl' }]),
      WRITE,
    );
    await index.idle();
    expect(decide(ask(carol, 'get', 'configmaps', 'a'))).toBe('allow');
    expect(decide(ask(carol, 'get', 'configmaps', 'b'))).toBe('no-opinion');
    expect(decide(ask(carol, 'delete', 'configmaps', 'a'))).toBe('no-opinion');
    expect(decide(ask(sa, 'get', 'secrets', 'a'))).toBe('allow');
    expect(decide(ask({ name: 'system:serviceaccount:b:ctl', groups: [] }, 'get', 'secrets', 'a'))).toBe('no-opinion');
  });

  it('forgets a remembered decision as soon as a binding or role changes', async () => {
    const dave: UserInfo = { name: 'dave', groups: [] };
    await stores.clusterRoleBindings.create(
      undefined,
      {
        ...RBAC,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'dave-read' },
        roleRef: ref('ClusterRole', 'cm-reader'),
        subjects: [{ kind: 'User', name: 'dave', apiGroup: 'rbac.authorization.k8s.io' }],
      } as KubeObject,
      WRITE,
    );
    await index.idle();
    expect(decide(ask(dave, 'list', 'configmaps', ''))).toBe('allow');
    expect(decide(ask(dave, 'list', 'configmaps', ''))).toBe('allow');
    // The role loses the verb: the same question now gets another answer.
    await stores.clusterRoles.update(
      undefined,
      'cm-reader',
      (r) => ({ ...r, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] }),
      WRITE,
    );
    await index.idle();
    expect(decide(ask(dave, 'list', 'configmaps', ''))).toBe('no-opinion');
    await stores.clusterRoleBindings.delete(undefined, 'dave-read', { dryRun: false });
    await index.idle();
    expect(decide(ask(dave, 'get', 'configmaps', ''))).toBe('no-opinion');
  });

  it('reports a binding to a missing role as kube’s authorizer does', async () => {
    const erin: UserInfo = { name: 'erin', groups: [] };
    await stores.roleBindings.create(
      'a',
      binding('a', 'erin-ghost', ref('ClusterRole', 'ghost'), [
        { kind: 'User', name: 'erin', apiGroup: 'rbac.authorization.k8s.io' },
      ]),
      WRITE,
    );
    await index.idle();
    expect(authz.authorize(ask(erin, 'get', 'configmaps', 'a'))).toEqual({
      decision: 'no-opinion',
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found',
    });
  });
});
