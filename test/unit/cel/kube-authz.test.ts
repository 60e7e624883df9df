// Kube's authorization libraries (cel/kube/authz.ts) through cel/ end to end, against the
// server's real authorizer: system:masters, then RBAC over an index of Roles, ClusterRoles and
// their bindings stored in SQLite. Each expression is checked and run as kube's admission
// environment declares `authorizer` and `authorizer.requestResource`; runtime costs are kube's
// (k8s.io/apiserver/pkg/cel/library/cost_test.go).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Authorizer } from '../../../apimachinery/authorization.js';
import { silentLogger } from '../../../apimachinery/log.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { UserInfo } from '../../../apimachinery/user.js';
import { check } from '../../../cel/checker.js';
import { variable } from '../../../cel/decls.js';
import { activation, type EvalResult, program } from '../../../cel/eval.js';
import { AUTHORIZER_TYPE, AuthorizerValue, RESOURCE_CHECK_TYPE, ResourceCheckValue } from '../../../cel/kube/authz.js';
import { kubeEnvironment } from '../../../cel/kube/environment.js';
import { KUBE_PARSER_OPTIONS, parse } from '../../../cel/parser.js';
import { Source } from '../../../cel/source.js';
import { CelError, type Value } from '../../../cel/values.js';
import { authorizerChain } from '../../../server/authz/authorizer.js';
import { type RbacStores, RbacIndex, indexAuthorizer } from '../../../server/authz/rbac-index.js';
import { rbacStores } from '../../helpers/rbac-stores.js';
import { createSqliteFixture } from '../../helpers/sqlite-fixture.js';

const WRITE = { dryRun: false };
const RBAC = { apiVersion: 'rbac.authorization.k8s.io/v1' };
const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const user = (name: string) => ({ kind: 'User', name, apiGroup: 'rbac.authorization.k8s.io' });

// alice may get secrets in namespace a and GET /healthz; the ServiceAccount a/builder may update
// the scale of the Deployment web in a; the group devs may list configmaps everywhere.
const OBJECTS: { store: 'roles' | 'clusterRoles' | 'roleBindings' | 'clusterRoleBindings'; obj: object }[] = [
  {
    store: 'roles',
    obj: {
      kind: 'Role',
      metadata: { name: 'secret-reader', namespace: 'a' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
    },
  },
  {
    store: 'roleBindings',
    obj: {
      kind: 'RoleBinding',
      metadata: { name: 'alice-secrets', namespace: 'a' },
      roleRef: ref('Role', 'secret-reader'),
      subjects: [user('alice')],
    },
  },
  {
    store: 'clusterRoles',
    obj: {
      kind: 'ClusterRole',
      metadata: { name: 'health' },
      rules: [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }],
    },
  },
  {
    store: 'clusterRoleBindings',
    obj: {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'alice-health' },
      roleRef: ref('ClusterRole', 'health'),
      subjects: [user('alice')],
    },
  },
  {
    store: 'roles',
    obj: {
      kind: 'Role',
      metadata: { name: 'scaler', namespace: 'a' },
      rules: [{ apiGroups: ['apps'], resources: ['deployments/scale'], resourceNames: ['web'], verbs: ['update'] }],
    },
  },
  {
    store: 'roleBindings',
    obj: {
      kind: 'RoleBinding',
      metadata: { name: 'builder-scales', namespace: 'a' },
      roleRef: ref('Role', 'scaler'),
      subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'a' }],
    },
  },
  {
    store: 'clusterRoles',
    obj: {
      kind: 'ClusterRole',
      metadata: { name: 'cm-lister' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    },
  },
  {
    store: 'clusterRoleBindings',
    obj: {
      kind: 'ClusterRoleBinding',
      metadata: { name: 'devs-list' },
      roleRef: ref('ClusterRole', 'cm-lister'),
      subjects: [{ kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' }],
    },
  },
];

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let stores: RbacStores;
let index: RbacIndex;
let authorizer: Authorizer;

beforeAll(async () => {
  fixture = await createSqliteFixture();
  const storage = await fixture.open();
  stores = rbacStores(storage);
  for (const { store, obj } of OBJECTS) {
    const o = { ...RBAC, ...obj } as KubeObject;
    await stores[store].create(o.metadata.namespace, o, WRITE);
  }
  index = new RbacIndex(stores, silentLogger);
  await index.start();
  authorizer = authorizerChain([indexAuthorizer(index)]);
});
afterAll(async () => {
  index.close();
  for (const s of Object.values(stores)) s.close();
  await fixture.teardown();
});

const USERS: Record<string, UserInfo> = {
  alice: { name: 'alice', groups: ['system:authenticated'] },
  carol: { name: 'carol', groups: ['devs', 'system:authenticated'] },
  admin: { name: 'admin', groups: ['system:masters', 'system:authenticated'] },
};

const env = kubeEnvironment('StoredExpressions');

/** Checks and runs `src` as `who`, the request being for the secret `s` in namespace a. */
function run(src: string, who: string): EvalResult {
  const parsed = parse(src, KUBE_PARSER_OPTIONS);
  expect(parsed.issues.errors, src).toEqual([]);
  const checker = env
    .checkerEnv()
    .addIdents(variable('authorizer', AUTHORIZER_TYPE), variable('authorizer.requestResource', RESOURCE_CHECK_TYPE));
  const checked = check(parsed.ast, new Source(src), checker);
  expect(checked.issues.toDisplayString(), src).toBe('');
  const authz = new AuthorizerValue(USERS[who]!, authorizer);
  const requestResource = new ResourceCheckValue(authz, {
    group: '',
    resource: 'secrets',
    subresource: '',
    namespace: 'a',
    name: 's',
  });
  return program(checked.ast, env.programOptions).eval(
    activation({ authorizer: authz, 'authorizer.requestResource': requestResource }),
  );
}

const value = (src: string, who: string): Value => {
  const v = run(src, who).value;
  if (v instanceof CelError) throw new Error(`${src}: ${v.message}`);
  return v;
};

const secrets = (ns: string) => `authorizer.group('').resource('secrets').namespace('${ns}')`;
const scale = "authorizer.serviceAccount('a', 'builder').group('apps').resource('deployments').subresource('scale')";

describe('checks against RBAC', () => {
  it.each<[string, string, Value]>([
    [`${secrets('a')}.check('get').allowed()`, 'alice', true],
    [`${secrets('a')}.name('s').check('get').allowed()`, 'alice', true],
    [`${secrets('b')}.check('get').allowed()`, 'alice', false],
    [`${secrets('a')}.check('list').allowed()`, 'alice', false],
    [`${secrets('a')}.check('get').allowed()`, 'carol', false],
    [
      `${secrets('a')}.check('get').reason()`,
      'alice',
      'RBAC: allowed by RoleBinding "alice-secrets/a" of Role "secret-reader" to User "alice"',
    ],
    [`${secrets('b')}.check('get').reason()`, 'alice', ''],
    [`${secrets('a')}.check('get').errored()`, 'alice', false],
    [`${secrets('a')}.check('get').error()`, 'alice', ''],
    ["authorizer.group('').resource('configmaps').check('list').allowed()", 'carol', true],
    ["authorizer.group('').resource('configmaps').namespace('x').check('list').allowed()", 'carol', true],
    ["authorizer.group('').resource('configmaps').check('list').allowed()", 'alice', false],
    ["authorizer.path('/healthz').check('get').allowed()", 'alice', true],
    ["authorizer.path('/healthz').check('post').allowed()", 'alice', false],
    ["authorizer.path('/livez').check('get').allowed()", 'alice', false],
    // The request's own resource: the secret s in a.
    ["authorizer.requestResource.check('get').allowed()", 'alice', true],
    ["authorizer.requestResource.namespace('b').check('get').allowed()", 'alice', false],
    // A ServiceAccount's own permissions, whoever asks.
    [`${scale}.namespace('a').name('web').check('update').allowed()`, 'carol', true],
    [`${scale}.namespace('a').name('api').check('update').allowed()`, 'carol', false],
    [`${scale}.namespace('a').name('web').subresource('').check('update').allowed()`, 'carol', false],
    [
      `${scale}.namespace('a').name('web').check('update').reason()`,
      'carol',
      'RBAC: allowed by RoleBinding "builder-scales/a" of Role "scaler" to ServiceAccount "builder/a"',
    ],
    [
      "authorizer.serviceAccount('a', 'builder').group('').resource('secrets').namespace('a').check('get').allowed()",
      'alice',
      false,
    ],
    // Selectors leave the decision to RBAC, which does not read them.
    [`${secrets('a')}.fieldSelector('metadata.name=s').labelSelector('app=x').check('get').allowed()`, 'alice', true],
    [`${secrets('b')}.fieldSelector('metadata.name=s').check('get').allowed()`, 'alice', false],
    // system:masters is allowed everything, before RBAC is asked.
    [`${secrets('z')}.check('delete').allowed()`, 'admin', true],
    [`${secrets('z')}.check('delete').reason()`, 'admin', ''],
    ["authorizer.path('/anything').check('get').allowed()", 'admin', true],
  ])('%s as %s', (src, who, want) => {
    expect(value(src, who)).toEqual(want);
  });
});

describe("kube's argument errors", () => {
  it.each([
    ["authorizer.path('')", 'path must not be empty'],
    ["authorizer.path(' \\t')", 'path must not be empty'],
    ["authorizer.group('').resource(' ')", 'resource must not be empty'],
    ["authorizer.serviceAccount('a', 'Not_A_Name')", 'Invalid service account name'],
    ["authorizer.serviceAccount('a.b', 'builder')", 'Invalid service account namespace'],
    ["authorizer.serviceAccount('a.b', 'Not_A_Name')", 'Invalid service account name'],
  ])('%s', (src, want) => {
    const v = run(src, 'alice').value;
    expect(v).toBeInstanceOf(CelError);
    expect((v as CelError).message).toBe(want);
  });
});

// kube's values embed receiverOnlyObjectVal, whose Equal is promoted: it asks whether the other
// value is a bare receiverOnlyObjectVal, which none is, so `==` is cel-go's "no such overload"
// even for the same value; `!=` is true (cel-go: not True), and list equality passes an element
// that errors (only False stops it) while `in` skips it (only True matches).
describe('equality of the authorization values (receiverOnlyObjectVal.Equal)', () => {
  it.each([
    'authorizer == authorizer',
    'authorizer.requestResource == authorizer.requestResource',
    "authorizer.path('/healthz').check('get') == authorizer.path('/healthz').check('get')",
    "dyn(authorizer) == 'x'",
  ])('%s is no such overload', (src) => {
    const v = run(src, 'alice').value;
    expect(v).toBeInstanceOf(CelError);
    expect((v as CelError).message).toBe('no such overload');
  });

  it.each<[string, Value]>([
    ['authorizer != authorizer', true],
    ['authorizer == null', false],
    ["'x' == dyn(authorizer)", false],
    ['[authorizer] == [authorizer]', true],
    ['authorizer in [authorizer]', false],
  ])('%s', (src, want) => {
    expect(value(src, 'alice')).toBe(want);
  });
});

describe("kube's runtime costs", () => {
  it.each([
    ["authorizer.path('/healthz')", 2],
    ["authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')", 6],
    [
      "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
      1821,
    ],
    [
      "authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
      1821,
    ],
    ["authorizer.path('/healthz').check('get').allowed()", 350003],
    [
      "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()",
      350007,
    ],
    [
      "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').errored()",
      350007,
    ],
    [
      "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').error()",
      350007,
    ],
  ])('%s', (src, cost) => {
    expect(run(src, 'admin').cost).toBe(cost);
  });
});

describe('declarations', () => {
  it('the libraries are not among the new expressions’ missing ones: both environments declare them', () => {
    for (const type of ['NewExpressions', 'StoredExpressions'] as const) {
      const names = new Set(kubeEnvironment(type).functions.map((f) => f.name));
      for (const f of ['path', 'group', 'serviceAccount', 'resource', 'check', 'allowed', 'fieldSelector'])
        expect(names.has(f), `${type} ${f}`).toBe(true);
    }
  });

  it('semver is for stored expressions only', () => {
    const has = (type: 'NewExpressions' | 'StoredExpressions'): boolean =>
      kubeEnvironment(type).functions.some((f) => f.name === 'isSemver');
    expect([has('NewExpressions'), has('StoredExpressions')]).toEqual([false, true]);
  });
});
