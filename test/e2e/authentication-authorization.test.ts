// Authentication, RBAC and audit as a kubectl user meets them, with the real kubectl 1.27 and 1.33
// against the real binary. One server for the file, started with a token file (an admin in
// system:masters and three plain users), an audit policy and an audit log; the versions take turns
// on it, each in namespaces of its own (its kubeconfigs' context's, test/helpers/kubectl.ts
// kubectlScope, and two more), with a CRD and cluster-scoped objects named after it, reading the
// audit log from where its turn began. The topics share it:
//   1. a CRD controller's ServiceAccount: least-privilege Role, token, kubeconfig, kube's 403 texts;
//   2. `kubectl auth can-i` (exit codes, --as, --list) and `kubectl auth whoami`;
//   3. escalation prevention: binding a role one does not hold;
//   4. ClusterRole aggregation into `view` (and, chained as in kube, into edit and admin);
//   5. the audit log: one JSON line per stage, kube's fields, bodies at RequestResponse, Audit-ID.
//
// kubectl comes from test/helpers/kubectl.ts findKubectl ($KUBECTL_1_27 / $KUBECTL_1_33, then
// $KUBECTL_DIR/kubectl.<version>, then `kubectl` on PATH). A version not found FAILS its first
// test, saying where it looked and how to get it; its other tests cannot run and are skipped.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { type KubectlRunner, kubectlScope, kubectlsFor } from '../helpers/kubectl.js';
import { eventually } from '../helpers/eventually.js';

const VERSIONS = ['1.27', '1.33'];
const KUBECTLS = kubectlsFor(VERSIONS, 'authentication and authorization');

// ---------------------------------------------------------------------------------------------
// Fixtures

/** kube's --token-auth-file CSV. The admin kubeconfig carries the first system:masters token. */
const TOKENS = {
  admin: 'admin-token-0123456789',
  alice: 'alice-token-0123456789', // bound to `edit` in team-a (topic 3)
  bob: 'bob-token-0123456789', // bound to nothing
  vera: 'vera-token-0123456789', // bound to `view` in default (topic 4)
};
const TOKEN_FILE = [
  `${TOKENS.admin},admin,uid-admin,"system:masters"`,
  `${TOKENS.alice},alice,uid-alice,"devs"`,
  `${TOKENS.bob},bob,uid-bob`,
  `${TOKENS.vera},vera,uid-vera`,
  '',
].join('\n');

/** Metadata for everything, RequestResponse for configmaps; no omitStages, so each stage is a line. */
const AUDIT_POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
`;

/** The CRD a controller reconciles, with a status subresource (so caches/status is its own resource). */
const cacheCrd = (group: string): string => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: caches.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: caches, singular: cache, kind: Cache}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

const cacheIn = (group: string, name: string, namespace: string): string =>
  JSON.stringify({
    apiVersion: `${group}/v1`,
    kind: 'Cache',
    metadata: { name, namespace },
    spec: { size: 1 },
  });

/**
 * The lesson's recommendation for a controller of caches: read and write its kind, but no
 * create/delete, and caches/status granted on its own rule (status is a separate resource to RBAC).
 */
const controllerRbac = (namespace: string, group: string): string => `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cache-controller, namespace: ${namespace}}
rules:
- apiGroups: [${group}]
  resources: [caches]
  verbs: [get, list, watch, update, patch]
- apiGroups: [${group}]
  resources: [caches/status]
  verbs: [get, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cache-controller, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cache-controller}
subjects:
- {kind: ServiceAccount, name: ctl, namespace: ${namespace}}
`;

const userBinding = (
  name: string,
  namespace: string,
  roleKind: 'Role' | 'ClusterRole',
  role: string,
  user: string,
): string => `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ${name}, namespace: ${namespace}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ${roleKind}, name: ${role}}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: ${user}}
`;

/** kube's 403 text as kubectl prints it for a namespaced request. */
const forbidden = (
  user: string,
  verb: string,
  resource: string,
  group: string,
  namespace: string,
  name?: string,
): string =>
  `Error from server (Forbidden): ${group ? `${resource}.${group}` : resource}${name ? ` "${name}"` : ''} is forbidden: ` +
  `User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${namespace}"`;

/** `kubectl auth can-i --list` rows with the column padding collapsed: "caches.x | [] | [] | [get list]". */
const canIRows = (stdout: string): string[] =>
  stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) =>
      l
        .trim()
        .split(/\s{2,}/)
        .join(' | '),
    );

/** What a user with no bindings may do in kube 1.33: system:basic-user, system:discovery, system:public-info-viewer. */
const BASIC_RULES = [
  'Resources | Non-Resource URLs | Resource Names | Verbs',
  'selfsubjectreviews.authentication.k8s.io | [] | [] | [create]',
  'selfsubjectaccessreviews.authorization.k8s.io | [] | [] | [create]',
  'selfsubjectrulesreviews.authorization.k8s.io | [] | [] | [create]',
  '[/api/*] | [] | [get]',
  '[/api] | [] | [get]',
  '[/apis/*] | [] | [get]',
  '[/apis] | [] | [get]',
  '[/healthz] | [] | [get]',
  '[/healthz] | [] | [get]',
  '[/livez] | [] | [get]',
  '[/livez] | [] | [get]',
  '[/openapi/*] | [] | [get]',
  '[/openapi] | [] | [get]',
  '[/readyz] | [] | [get]',
  '[/readyz] | [] | [get]',
  '[/version/] | [] | [get]',
  '[/version/] | [] | [get]',
  '[/version] | [] | [get]',
  '[/version] | [] | [get]',
];

interface Kubeconfig {
  users: { name: string; user: { token?: string } }[];
  contexts: { name: string; context: { user: string } }[];
}

/** A copy of the admin kubeconfig `admin` whose only user carries `token` (as an admin hands one out). */
function writeTokenKubeconfig(admin: string, path: string, user: string, token: string): string {
  const kc = parseYaml(readFileSync(admin, 'utf8')) as Kubeconfig;
  kc.users = [{ name: user, user: { token } }];
  for (const c of kc.contexts) c.context.user = user;
  writeFileSync(path, stringifyYaml(kc), { mode: 0o600 });
  return path;
}

/** The claims of a JWT (no verification: the server's answer to the token is the test). */
const jwtClaims = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;

interface AuditEvent {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username: string; groups?: string[] };
  impersonatedUser?: { username: string; groups?: string[] };
  userAgent?: string;
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion?: string;
    subresource?: string;
  };
  responseStatus?: { code: number };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  annotations?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------

let server: ServerProcess;
let scratch: string;
const auditLog = (): string => join(scratch, 'audit.log');
/** The audit log's complete lines (a line being written is not one yet); none before the first. */
const auditLines = (): string[] =>
  existsSync(auditLog()) ? readFileSync(auditLog(), 'utf8').split('\n').slice(0, -1) : [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'authn-authz-'));
  writeFileSync(join(scratch, 'tokens.csv'), TOKEN_FILE);
  writeFileSync(join(scratch, 'policy.yaml'), AUDIT_POLICY);
  server = await startServerProcess({
    args: [
      '--token-auth-file',
      join(scratch, 'tokens.csv'),
      '--audit-policy-file',
      join(scratch, 'policy.yaml'),
      '--audit-log-path',
      auditLog(),
    ],
  });
});
afterAll(async () => {
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version}: authentication, RBAC and audit`, () => {
    const scope = kubectlScope(binary, version, () => server);
    const admin: KubectlRunner = scope;
    const { namespace: ns, suffix } = scope;
    /** This version's other namespaces, its CRD's group, and its ServiceAccount as a user. */
    const [other, teamA] = [`other-${suffix}`, `team-a-${suffix}`];
    const group = `cache-${suffix}.example.com`;
    const cache = (name: string, namespace: string): string => cacheIn(group, name, namespace);
    const SA_USER = `system:serviceaccount:${ns}:ctl`;
    /** kubectl as one of the token-file users, through a kubeconfig of their own. */
    const users = new Map<string, KubectlRunner>();
    const as = (user: keyof typeof TOKENS): KubectlRunner => users.get(user)!;
    /** The audit log's lines before this version's turn: its topic 5 reads those after. */
    let auditFrom = 0;

    beforeAll(async () => {
      auditFrom = auditLines().length;
      for (const [user, token] of Object.entries(TOKENS)) {
        const path = writeTokenKubeconfig(
          scope.kubeconfigPath(),
          join(scratch, `${user}-${suffix}.kubeconfig`),
          user,
          token,
        );
        users.set(
          user,
          scope.runner(() => path),
        );
      }
      // The CRD, established, and the namespaces the topics use (as the admin: system:masters).
      await admin.ok(['apply', '-f', '-'], cacheCrd(group));
      await admin.ok(['wait', '--for=condition=Established', `crd/caches.${group}`, '--timeout=20s']);
      await admin.ok(['create', 'namespace', other]);
      await admin.ok(['create', 'namespace', teamA]);
      await admin.ok(['create', '-f', '-'], cache('c1', ns));
      await admin.ok(['create', '-f', '-'], cache('c2', other));
    });
    afterAll(async () => {
      // So that the other version's `cache` names its own CRD alone.
      await admin.kubectl(['delete', 'crd', `caches.${group}`, '--ignore-not-found']);
    });

    // -----------------------------------------------------------------------------------------
    describe('1. a CRD controller ServiceAccount with a least-privilege Role', () => {
      let ctl: KubectlRunner;

      beforeAll(async () => {
        expect(await admin.ok(['create', 'serviceaccount', 'ctl', '-n', ns])).toBe('serviceaccount/ctl created\n');
        expect(await admin.ok(['apply', '-f', '-'], controllerRbac(ns, group))).toBe(
          'role.rbac.authorization.k8s.io/cache-controller created\nrolebinding.rbac.authorization.k8s.io/cache-controller created\n',
        );
        // The token through the TokenRequest API directly, so that this topic does not hang on
        // `kubectl create token` (its own test below). kube takes a body without apiVersion/kind
        // at this URL (the decoder defaults them from the endpoint).
        const r = await server.request(`/api/v1/namespaces/${ns}/serviceaccounts/ctl/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ spec: {} }),
        });
        expect(r.status, r.body).toBe(201);
        const token = (JSON.parse(r.body) as { status: { token: string } }).status.token;
        // A kubeconfig for the controller the way a user builds one: copy, set-credentials, use it.
        const path = join(scratch, `ctl-${suffix}.kubeconfig`);
        writeFileSync(path, readFileSync(scope.kubeconfigPath()));
        ctl = scope.runner(() => path);
        await ctl.ok(['config', 'set-credentials', 'ctl', `--token=${token}`]);
        await ctl.ok(['config', 'set-context', '--current', '--user=ctl']);
      });

      it('`kubectl create token ctl` prints a ServiceAccount JWT the server accepts', async () => {
        const r = await admin.kubectl(['create', 'token', 'ctl', '-n', ns]);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const token = r.stdout.trim();
        const claims = jwtClaims(token);
        expect(claims).toMatchObject({
          iss: 'https://kubernetes.default.svc.cluster.local',
          aud: ['https://kubernetes.default.svc.cluster.local'],
          sub: SA_USER,
          'kubernetes.io': { namespace: ns, serviceaccount: { name: 'ctl' } },
        });
        // Default lifetime is one hour, as kube's.
        expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
        const list = await server.request(`/apis/${group}/v1/namespaces/${ns}/caches`, { token });
        expect(list.status, list.body).toBe(200);
      });

      it('the imperative RBAC commands work: create role, rolebinding, clusterrole, clusterrolebinding', async () => {
        // kubectl 1.33 sends these bodies as protobuf; 1.27 as JSON.
        expect(
          await admin.ok(['create', 'role', 'cache-reader', '-n', ns, '--verb=get,list', `--resource=caches.${group}`]),
        ).toBe('role.rbac.authorization.k8s.io/cache-reader created\n');
        expect(
          await admin.ok([
            'create',
            'rolebinding',
            'cache-reader',
            '-n',
            ns,
            '--role=cache-reader',
            `--serviceaccount=${ns}:ctl`,
          ]),
        ).toBe('rolebinding.rbac.authorization.k8s.io/cache-reader created\n');
        expect(
          await admin.ok([
            'create',
            'clusterrole',
            `cache-reader-${suffix}`,
            '--verb=get',
            `--resource=caches.${group}`,
          ]),
        ).toBe(`clusterrole.rbac.authorization.k8s.io/cache-reader-${suffix} created\n`);
        expect(
          await admin.ok([
            'create',
            'clusterrolebinding',
            `cache-reader-${suffix}`,
            `--clusterrole=cache-reader-${suffix}`,
            '--user=nobody',
          ]),
        ).toBe(`clusterrolebinding.rbac.authorization.k8s.io/cache-reader-${suffix} created\n`);
        const role = JSON.parse(await admin.ok(['get', 'role', 'cache-reader', '-n', ns, '-o', 'json'])) as {
          rules: unknown[];
        };
        expect(role.rules).toEqual([{ apiGroups: [group], resources: ['caches'], verbs: ['get', 'list'] }]);
        const binding = JSON.parse(await admin.ok(['get', 'rolebinding', 'cache-reader', '-n', ns, '-o', 'json'])) as {
          roleRef: unknown;
          subjects: unknown[];
        };
        expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cache-reader' });
        expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'ctl', namespace: ns }]);
        await admin.ok(['delete', 'rolebinding,role', 'cache-reader', '-n', ns]);
        await admin.ok(['delete', 'clusterrolebinding,clusterrole', `cache-reader-${suffix}`]);
      });

      it('its kubeconfig can list and patch caches and patch caches/status in its namespace', async () => {
        expect((await ctl.ok(['get', 'caches'])).split('\n')[1]).toMatch(/^c1\s+\d+s$/);
        expect(await ctl.ok(['patch', 'cache', 'c1', '--type=merge', '-p', '{"spec":{"size":2}}'])).toBe(
          `cache.${group}/c1 patched\n`,
        );
        expect(
          await ctl.ok([
            'patch',
            'cache',
            'c1',
            '--subresource=status',
            '--type=merge',
            '-p',
            '{"status":{"ready":true}}',
          ]),
        ).toBe(`cache.${group}/c1 patched\n`);
        const c1 = JSON.parse(await ctl.ok(['get', 'cache', 'c1', '-o', 'json'])) as { spec: unknown; status: unknown };
        expect([c1.spec, c1.status]).toEqual([{ size: 2 }, { ready: true }]);
      });

      it("everything outside the Role gets kube's exact 403", async () => {
        const configmaps = await ctl.kubectl(['get', 'configmaps']);
        expect(configmaps.code).toBe(1);
        expect(configmaps.stderr).toBe(`${forbidden(SA_USER, 'list', 'configmaps', '', ns)}\n`);

        const del = await ctl.kubectl(['delete', 'cache', 'c1']);
        expect(del.code).toBe(1);
        expect(del.stderr).toBe(`${forbidden(SA_USER, 'delete', 'caches', group, ns, 'c1')}\n`);

        const create = await ctl.kubectl(['create', '-f', '-'], cache('c9', ns));
        expect(create.code).toBe(1);
        expect(create.stderr).toBe(
          `${forbidden(SA_USER, 'create', 'caches', group, ns).replace('(Forbidden): ', '(Forbidden): error when creating "STDIN": ')}\n`,
        );

        // A RoleBinding grants in its own namespace only.
        const inOther = await ctl.kubectl(['get', 'caches', '-n', other]);
        expect(inOther.code).toBe(1);
        expect(inOther.stderr).toBe(`${forbidden(SA_USER, 'list', 'caches', group, other)}\n`);
        expect(await admin.ok(['get', 'cache', 'c1', '-o', 'name'])).toBe(`cache.${group}/c1\n`);
      });
    });

    // -----------------------------------------------------------------------------------------
    describe('2. kubectl auth can-i and auth whoami', () => {
      it('can-i answers yes (exit 0) and no (exit 1), for the admin and, with --as, for the ServiceAccount', async () => {
        const mine = await admin.kubectl(['auth', 'can-i', 'create', `caches.${group}`]);
        expect([mine.stdout, mine.code]).toEqual(['yes\n', 0]);

        const asSa = (args: string[]) => admin.kubectl(['auth', 'can-i', ...args, `--as=${SA_USER}`]);
        const create = await asSa(['create', `caches.${group}`]);
        expect([create.stdout, create.code]).toEqual(['no\n', 1]);
        const patch = await asSa(['patch', `caches.${group}`]);
        expect([patch.stdout, patch.code]).toEqual(['yes\n', 0]);
        const status = await asSa(['update', `caches.${group}`, '--subresource=status']);
        expect([status.stdout, status.code]).toEqual(['yes\n', 0]);
        const elsewhere = await asSa(['list', `caches.${group}`, '-n', other]);
        expect([elsewhere.stdout, elsewhere.code]).toEqual(['no\n', 1]);
        // Impersonating a group: system:masters may do anything.
        const asMasters = await admin.kubectl([
          'auth',
          'can-i',
          'delete',
          `caches.${group}`,
          '--as=someone',
          '--as-group=system:masters',
        ]);
        expect([asMasters.stdout, asMasters.code]).toEqual(['yes\n', 0]);
      });

      it('can-i --list for the ServiceAccount shows its two rules beside the basic ones', async () => {
        const rows = canIRows(await admin.ok(['auth', 'can-i', '--list', `--as=${SA_USER}`]));
        expect(rows).toContain(`caches.${group} | [] | [] | [get list watch update patch]`);
        expect(rows).toContain(`caches.${group}/status | [] | [] | [get update patch]`);
        // ServiceAccounts may also read the issuer discovery documents (system:service-account-issuer-discovery).
        expect(rows).toContain('[/.well-known/openid-configuration] | [] | [get]');
        expect(rows).toContain('[/openid/v1/jwks] | [] | [get]');
        expect(rows.filter((r) => r.includes('configmaps'))).toEqual([]);
      });

      it('a token-file user with no binding: 403 on a custom resource list; can-i --list shows only the basic rules', async () => {
        const r = await as('bob').kubectl(['get', 'caches']);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(`${forbidden('bob', 'list', 'caches', group, ns)}\n`);
        const all = await as('bob').kubectl(['get', 'caches', '-A']);
        expect(all.stderr).toBe(
          `Error from server (Forbidden): caches.${group} is forbidden: User "bob" cannot list resource "caches" in API group "${group}" at the cluster scope\n`,
        );
        expect(canIRows(await as('bob').ok(['auth', 'can-i', '--list']))).toEqual(BASIC_RULES);
        // Not allowed to impersonate, either.
        const imp = await as('bob').kubectl(['get', 'caches', '--as=admin']);
        expect(imp.code).toBe(1);
        expect(imp.stderr).toBe(
          'Error from server (Forbidden): users "admin" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope\n',
        );
      });

      if (version === '1.27') {
        it('whoami: kubectl 1.27 asks for authentication.k8s.io v1alpha1/v1beta1, which a 1.33 server does not serve', async () => {
          const r = await admin.kubectl(['auth', 'whoami']);
          expect(r.code).toBe(1);
          expect(r.stderr).toBe(
            'error: the selfsubjectreviews API is not enabled in the cluster\n' +
              'enable APISelfSubjectReview feature gate and authentication.k8s.io/v1alpha1 or authentication.k8s.io/v1beta1 API\n',
          );
          // The same question as a v1 SelfSubjectReview through `kubectl create` answers it.
          // --validate=false: kubectl 1.27 learns whether a kind takes fieldValidation from its
          // PATCH operation, which SelfSubjectReview has none of (in kube too), then looks the kind
          // up among the CRDs, which alice may not list.
          const review = JSON.parse(
            await as('alice').ok(
              ['create', '--validate=false', '-o', 'json', '-f', '-'],
              JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
            ),
          ) as { status: { userInfo: unknown } };
          expect(review.status.userInfo).toEqual({
            username: 'alice',
            uid: 'uid-alice',
            groups: ['devs', 'system:authenticated'],
          });
        });
      } else {
        it('whoami shows the admin, a token-file user, the ServiceAccount (with --as) and an impersonated group', async () => {
          const table = await admin.ok(['auth', 'whoami']);
          expect(canIRows(table)).toEqual([
            'ATTRIBUTE | VALUE',
            'Username | admin',
            'UID | uid-admin',
            'Groups | [system:masters system:authenticated]',
          ]);
          const alice = JSON.parse(await as('alice').ok(['auth', 'whoami', '-o', 'json'])) as Record<string, unknown>;
          expect(alice).toEqual({
            kind: 'SelfSubjectReview',
            apiVersion: 'authentication.k8s.io/v1',
            metadata: { creationTimestamp: null },
            status: { userInfo: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] } },
          });
          const sa = JSON.parse(await admin.ok(['auth', 'whoami', '-o', 'json', `--as=${SA_USER}`])) as {
            status: { userInfo: { username: string } };
          };
          expect(sa.status.userInfo.username).toBe(SA_USER);
          const grouped = JSON.parse(
            await admin.ok(['auth', 'whoami', '-o', 'json', '--as=someone', '--as-group=g1', '--as-group=g2']),
          ) as {
            status: { userInfo: unknown };
          };
          expect(grouped.status.userInfo).toEqual({
            username: 'someone',
            groups: ['g1', 'g2', 'system:authenticated'],
          });
        });
      }
    });

    // -----------------------------------------------------------------------------------------
    describe('3. escalation prevention', () => {
      const grantAdminToBob = userBinding('bob-admin', teamA, 'ClusterRole', 'admin', 'bob');

      it('edit alone does not let alice create RoleBindings at all', async () => {
        await admin.ok(['apply', '-f', '-'], userBinding('alice-edit', teamA, 'ClusterRole', 'edit', 'alice'));
        const r = await as('alice').kubectl(['create', '-f', '-'], grantAdminToBob);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `Error from server (Forbidden): error when creating "STDIN": rolebindings.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "${teamA}"\n`,
        );
      });

      it('allowed to create RoleBindings, alice still cannot grant admin, which she does not hold; she can grant edit', async () => {
        // The right to write bindings, not the right to hand out any role (that would be `bind`/`escalate`).
        await admin.ok(
          ['apply', '-f', '-'],
          `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: binder, namespace: ${teamA}}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [rolebindings], verbs: [create, get, list, delete]}
---${userBinding('alice-binder', teamA, 'Role', 'binder', 'alice')}`,
        );
        const r = await as('alice').kubectl(['create', '-f', '-'], grantAdminToBob);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(
          'Error from server (Forbidden): error when creating "STDIN": rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: ' +
            'user "alice" (groups=["devs" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n',
        );
        // admin has on roles what edit lacks: every verb, listed as kube lists them.
        expect(r.stderr).toContain(
          '{APIGroups:["rbac.authorization.k8s.io"], Resources:["roles"], Verbs:["create" "delete" "deletecollection" "get" "list" "patch" "update" "watch"]}',
        );
        expect((await admin.kubectl(['get', 'rolebinding', 'bob-admin', '-n', teamA])).code).toBe(1);

        expect(
          await as('alice').ok(['create', '-f', '-'], userBinding('bob-edit', teamA, 'ClusterRole', 'edit', 'bob')),
        ).toBe('rolebinding.rbac.authorization.k8s.io/bob-edit created\n');
      });

      it('the admin can grant admin, and bob then holds it', async () => {
        const before = await as('bob').kubectl(['auth', 'can-i', 'create', 'roles', '-n', teamA]);
        expect([before.stdout, before.code]).toEqual(['no\n', 1]);
        expect(await admin.ok(['create', '-f', '-'], grantAdminToBob)).toBe(
          'rolebinding.rbac.authorization.k8s.io/bob-admin created\n',
        );
        const after = await as('bob').kubectl(['auth', 'can-i', 'create', 'roles', '-n', teamA]);
        expect([after.stdout, after.code]).toEqual(['yes\n', 0]);
        // Holding admin there, bob may now grant it there himself.
        expect(
          await as('bob').ok(['create', '-f', '-'], userBinding('vera-admin', teamA, 'ClusterRole', 'admin', 'vera')),
        ).toBe('rolebinding.rbac.authorization.k8s.io/vera-admin created\n');
      });
    });

    // -----------------------------------------------------------------------------------------
    describe('4. ClusterRole aggregation', () => {
      const cachesView = `caches-view-${suffix}`;
      const CACHES_VIEW = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${cachesView}
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- {apiGroups: [${group}], resources: [caches], verbs: [get, list, watch]}
`;
      const CACHES_RULE = { apiGroups: [group], resources: ['caches'], verbs: ['get', 'list', 'watch'] };
      const rulesOf = async (role: string): Promise<unknown[]> =>
        (JSON.parse(await admin.ok(['get', 'clusterrole', role, '-o', 'json'])) as { rules?: unknown[] }).rules ?? [];

      it('a ClusterRole labelled aggregate-to-view joins view (and edit and admin, which aggregate view); a view user can then get caches', async () => {
        await admin.ok(['apply', '-f', '-'], userBinding('vera-view', ns, 'ClusterRole', 'view', 'vera'));
        const before = await as('vera').kubectl(['get', 'cache', 'c1']);
        expect(before.stderr).toBe(`${forbidden('vera', 'get', 'caches', group, ns, 'c1')}\n`);
        expect(await rulesOf('view')).not.toContainEqual(CACHES_RULE);

        expect(await admin.ok(['apply', '-f', '-'], CACHES_VIEW)).toBe(
          `clusterrole.rbac.authorization.k8s.io/${cachesView} created\n`,
        );
        // The aggregation controller runs after the write: poll, as a user would.
        await eventually('view aggregates caches-view', async () =>
          (await rulesOf('view')).some((r) => JSON.stringify(r) === JSON.stringify(CACHES_RULE)) ? true : undefined,
        );
        await eventually('edit and admin aggregate view', async () => {
          const [edit, adm] = [await rulesOf('edit'), await rulesOf('admin')];
          return [edit, adm].every((rules) => rules.some((r) => JSON.stringify(r) === JSON.stringify(CACHES_RULE)))
            ? true
            : undefined;
        });

        expect(await as('vera').ok(['get', 'cache', 'c1', '-o', 'name'])).toBe(`cache.${group}/c1\n`);
        expect((await as('vera').ok(['get', 'caches'])).split('\n')[1]).toMatch(/^c1\s+\d+s$/);
        // Only what was aggregated: view still cannot delete, and its binding is still namespaced.
        expect((await as('vera').kubectl(['delete', 'cache', 'c1'])).stderr).toBe(
          `${forbidden('vera', 'delete', 'caches', group, ns, 'c1')}\n`,
        );
        expect((await as('vera').kubectl(['get', 'caches', '-n', other])).stderr).toBe(
          `${forbidden('vera', 'list', 'caches', group, other)}\n`,
        );
      });

      it('deleting the labelled ClusterRole takes its rules out of view again', async () => {
        await admin.ok(['delete', 'clusterrole', cachesView]);
        await eventually('view without caches-view', async () =>
          !(await rulesOf('view')).some((r) => JSON.stringify(r) === JSON.stringify(CACHES_RULE)) ? true : undefined,
        );
        const r = await as('vera').kubectl(['get', 'cache', 'c1']);
        expect(r.stderr).toBe(`${forbidden('vera', 'get', 'caches', group, ns, 'c1')}\n`);
      });
    });

    // -----------------------------------------------------------------------------------------
    describe('5. the audit log', () => {
      /** This version's audit events: those written since its turn began. */
      const events = (): AuditEvent[] =>
        auditLines()
          .slice(auditFrom)
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as AuditEvent);
      /**
       * Every stage of the request whose ResponseComplete line matches `pick`, once written. Found by
       * auditID: a RequestReceived line knows less (a create's objectRef has no name yet, as in kube).
       */
      const stagesOf = (what: string, pick: (e: AuditEvent) => boolean): Promise<AuditEvent[]> =>
        eventually(what, async () => {
          const all = events();
          const done = all.find((e) => e.stage === 'ResponseComplete' && pick(e));
          return done ? all.filter((e) => e.auditID === done.auditID) : undefined;
        });
      const kubectlAgent = (e: AuditEvent): boolean =>
        e.userAgent?.startsWith(`kubectl.${version}/`) === true ||
        e.userAgent?.startsWith(`kubectl/v${version}.`) === true;

      it('a configmap create: a RequestReceived and a ResponseComplete line, at RequestResponse with both bodies', async () => {
        expect(await admin.ok(['create', 'configmap', 'audited', '--from-literal=k=v'])).toBe(
          'configmap/audited created\n',
        );
        const lines = await stagesOf(
          'the configmap create',
          (e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps' && e.objectRef.name === 'audited',
        );
        expect(lines.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
        const [received, done] = lines as [AuditEvent, AuditEvent];
        expect(received.auditID).toBe(done.auditID);
        expect(done.auditID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(kubectlAgent(done)).toBe(true);
        expect(done).toMatchObject({
          kind: 'Event',
          apiVersion: 'audit.k8s.io/v1',
          level: 'RequestResponse',
          stage: 'ResponseComplete',
          requestURI: expect.stringMatching(new RegExp(`^/api/v1/namespaces/${ns}/configmaps(\\?|$)`)) as unknown,
          verb: 'create',
          user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
          objectRef: { resource: 'configmaps', namespace: ns, name: 'audited', apiVersion: 'v1' },
          responseStatus: { code: 201 },
          annotations: { 'authorization.k8s.io/decision': 'allow' },
        });
        // kubectl 1.33 sends this body as protobuf; the log has it as JSON either way.
        expect(done.requestObject).toMatchObject({
          kind: 'ConfigMap',
          apiVersion: 'v1',
          metadata: { name: 'audited' },
          data: { k: 'v' },
        });
        expect(done.responseObject).toMatchObject({
          kind: 'ConfigMap',
          apiVersion: 'v1',
          metadata: { name: 'audited', namespace: ns },
          data: { k: 'v' },
        });
        // The RequestReceived line is written before authorization and the response.
        expect(received.responseStatus).toBeUndefined();
        expect(received.responseObject).toBeUndefined();
      });

      it('a denied custom resource list: Metadata level (no bodies), 403, decision forbid', async () => {
        expect((await as('bob').kubectl(['get', 'caches', '-n', other])).code).toBe(1);
        const lines = await stagesOf(
          'bob listing caches',
          (e) => e.user.username === 'bob' && e.objectRef?.resource === 'caches' && e.objectRef.namespace === other,
        );
        expect(lines.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
        const done = lines[1]!;
        expect(done).toMatchObject({
          level: 'Metadata',
          verb: 'list',
          objectRef: { resource: 'caches', namespace: other, apiGroup: group, apiVersion: 'v1' },
          responseStatus: { code: 403 },
          annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' },
        });
        expect(done.requestObject).toBeUndefined();
        expect(done.responseObject).toBeUndefined();
      });

      it("an RBAC allow carries kube's reason; an impersonated request names both users", async () => {
        await as('vera').ok(['get', 'configmaps', '-n', teamA]); // vera-admin from topic 3
        const vera = (
          await stagesOf(
            'vera listing configmaps',
            (e) => e.user.username === 'vera' && e.verb === 'list' && e.objectRef?.resource === 'configmaps',
          )
        ).find((e) => e.stage === 'ResponseComplete')!;
        expect(vera.annotations).toEqual({
          'authorization.k8s.io/decision': 'allow',
          'authorization.k8s.io/reason': `RBAC: allowed by RoleBinding "vera-admin/${teamA}" of ClusterRole "admin" to User "vera"`,
        });

        await admin.ok(['get', 'caches', '-n', ns, `--as=${SA_USER}`]);
        const imp = (
          await stagesOf(
            'the impersonated list',
            (e) => e.impersonatedUser?.username === SA_USER && e.objectRef?.resource === 'caches',
          )
        ).find((e) => e.stage === 'ResponseComplete')!;
        expect(imp.user.username).toBe('admin');
        expect(imp.impersonatedUser).toMatchObject({ username: SA_USER });
        expect(imp.responseStatus?.code).toBe(200);
      });

      it('the Audit-ID response header is the auditID of the lines; a client-sent Audit-ID is kept', async () => {
        const r = await server.request(`/api/v1/namespaces/${ns}/configmaps/audited`);
        expect(r.status).toBe(200);
        const id = r.headers['audit-id'];
        expect(typeof id).toBe('string');
        const lines = await stagesOf('the request by Audit-ID', (e) => e.auditID === id);
        expect(lines.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
        expect(lines[1]).toMatchObject({
          verb: 'get',
          level: 'RequestResponse',
          responseStatus: { code: 200 },
          responseObject: { metadata: { name: 'audited' } },
        });

        const mine = await server.request(`/api/v1/namespaces/${ns}/configmaps/audited`, {
          headers: { 'audit-id': 'my-trace-0001' },
        });
        expect(mine.headers['audit-id']).toBe('my-trace-0001');
        expect(
          (await stagesOf('the request with the client Audit-ID', (e) => e.auditID === 'my-trace-0001')).map(
            (e) => e.stage,
          ),
        ).toEqual(['RequestReceived', 'ResponseComplete']);
      });
    });
  });
}
