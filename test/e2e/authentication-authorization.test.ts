// Authentication, RBAC and audit as a kubectl user meets them, with the real kubectl 1.27 and 1.33
// against the real binary. One server per kubectl version, started with a token file (an admin in
// system:masters and three plain users), an audit policy and an audit log; the topics share it:
//   1. a CRD controller's ServiceAccount: least-privilege Role, token, kubeconfig, kube's 403 texts;
//   2. `kubectl auth can-i` (exit codes, --as, --list) and `kubectl auth whoami`;
//   3. escalation prevention: binding a role one does not hold;
//   4. ClusterRole aggregation into `view` (and, chained as in kube, into edit and admin);
//   5. the audit log: one JSON line per stage, kube's fields, bodies at RequestResponse, Audit-ID.
//
// kubectl comes from test/helpers/kubectl.ts findKubectl ($KUBECTL_1_27 / $KUBECTL_1_33, then
// $KUBECTL_DIR/kubectl.<version>, then `kubectl` on PATH). A version not found FAILS its first
// test, saying where it looked and how to get it; its other tests cannot run and are skipped.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { type KubectlRunner, kubectlsFor, kubectlRunner } from '../helpers/kubectl.js';
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
const CACHE_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: caches.cache.example.com
spec:
  group: cache.example.com
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

const cache = (name: string, namespace: string): string =>
  JSON.stringify({
    apiVersion: 'cache.example.com/v1',
    kind: 'Cache',
    metadata: { name, namespace },
    spec: { size: 1 },
  });

/**
 * The lesson's recommendation for a controller of caches: read and write its kind, but no
 * create/delete, and caches/status granted on its own rule (status is a separate resource to RBAC).
 */
const CONTROLLER_RBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cache-controller, namespace: default}
rules:
- apiGroups: [cache.example.com]
  resources: [caches]
  verbs: [get, list, watch, update, patch]
- apiGroups: [cache.example.com]
  resources: [caches/status]
  verbs: [get, update, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cache-controller, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cache-controller}
subjects:
- {kind: ServiceAccount, name: ctl, namespace: default}
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

const SA_USER = 'system:serviceaccount:default:ctl';

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

/** A copy of the admin kubeconfig whose only user carries `token` (as an admin hands one out). */
function writeTokenKubeconfig(server: ServerProcess, path: string, user: string, token: string): string {
  const kc = parseYaml(readFileSync(server.kubeconfigPath, 'utf8')) as Kubeconfig;
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

for (const version of VERSIONS) {
  const binary = KUBECTLS.get(version) ?? '';

  describe.skipIf(binary === '')(`kubectl ${version}: authentication, RBAC and audit`, () => {
    let server: ServerProcess;
    let scratch: string;
    const admin = kubectlRunner(binary, () => server.kubeconfigPath);
    /** kubectl as one of the token-file users, through a kubeconfig of their own. */
    const users = new Map<string, KubectlRunner>();
    const as = (user: keyof typeof TOKENS): KubectlRunner => users.get(user)!;
    const auditLog = (): string => join(scratch, 'audit.log');

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
      for (const [user, token] of Object.entries(TOKENS)) {
        const path = writeTokenKubeconfig(server, join(scratch, `${user}.kubeconfig`), user, token);
        users.set(
          user,
          kubectlRunner(binary, () => path),
        );
      }
      // The CRD, established, and the namespaces the topics use (as the admin: system:masters).
      await admin.ok(['apply', '-f', '-'], CACHE_CRD);
      await admin.ok(['wait', '--for=condition=Established', 'crd/caches.cache.example.com', '--timeout=20s']);
      await admin.ok(['create', 'namespace', 'other']);
      await admin.ok(['create', 'namespace', 'team-a']);
      await admin.ok(['create', '-f', '-'], cache('c1', 'default'));
      await admin.ok(['create', '-f', '-'], cache('c2', 'other'));
    });
    afterAll(async () => {
      await server?.stop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    // -----------------------------------------------------------------------------------------
    describe('1. a CRD controller ServiceAccount with a least-privilege Role', () => {
      let ctl: KubectlRunner;

      beforeAll(async () => {
        expect(await admin.ok(['create', 'serviceaccount', 'ctl', '-n', 'default'])).toBe(
          'serviceaccount/ctl created\n',
        );
        expect(await admin.ok(['apply', '-f', '-'], CONTROLLER_RBAC)).toBe(
          'role.rbac.authorization.k8s.io/cache-controller created\nrolebinding.rbac.authorization.k8s.io/cache-controller created\n',
        );
        // The token through the TokenRequest API directly, so that this topic does not hang on
        // `kubectl create token` (its own test below). kube takes a body without apiVersion/kind
        // at this URL (the decoder defaults them from the endpoint).
        const r = await server.request('/api/v1/namespaces/default/serviceaccounts/ctl/token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ spec: {} }),
        });
        expect(r.status, r.body).toBe(201);
        const token = (JSON.parse(r.body) as { status: { token: string } }).status.token;
        // A kubeconfig for the controller the way a user builds one: copy, set-credentials, use it.
        const path = join(scratch, 'ctl.kubeconfig');
        writeFileSync(path, readFileSync(server.kubeconfigPath));
        ctl = kubectlRunner(binary, () => path);
        await ctl.ok(['config', 'set-credentials', 'ctl', `--token=${token}`]);
        await ctl.ok(['config', 'set-context', '--current', '--user=ctl']);
      });

      it('`kubectl create token ctl` prints a ServiceAccount JWT the server accepts', async () => {
        const r = await admin.kubectl(['create', 'token', 'ctl', '-n', 'default']);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const token = r.stdout.trim();
        const claims = jwtClaims(token);
        expect(claims).toMatchObject({
          iss: 'https://kubernetes.default.svc.cluster.local',
          aud: ['https://kubernetes.default.svc.cluster.local'],
          sub: SA_USER,
          'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'ctl' } },
        });
        // Default lifetime is one hour, as kube's.
        expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
        const list = await server.request('/apis/cache.example.com/v1/namespaces/default/caches', { token });
        expect(list.status, list.body).toBe(200);
      });

      it('the imperative RBAC commands work: create role, rolebinding, clusterrole, clusterrolebinding', async () => {
        // kubectl 1.33 sends these bodies as protobuf; 1.27 as JSON.
        expect(
          await admin.ok([
            'create',
            'role',
            'cache-reader',
            '-n',
            'default',
            '--verb=get,list',
            '--resource=caches.cache.example.com',
          ]),
        ).toBe('role.rbac.authorization.k8s.io/cache-reader created\n');
        expect(
          await admin.ok([
            'create',
            'rolebinding',
            'cache-reader',
            '-n',
            'default',
            '--role=cache-reader',
            '--serviceaccount=default:ctl',
          ]),
        ).toBe('rolebinding.rbac.authorization.k8s.io/cache-reader created\n');
        expect(
          await admin.ok([
            'create',
            'clusterrole',
            'cache-reader',
            '--verb=get',
            '--resource=caches.cache.example.com',
          ]),
        ).toBe('clusterrole.rbac.authorization.k8s.io/cache-reader created\n');
        expect(
          await admin.ok([
            'create',
            'clusterrolebinding',
            'cache-reader',
            '--clusterrole=cache-reader',
            '--user=nobody',
          ]),
        ).toBe('clusterrolebinding.rbac.authorization.k8s.io/cache-reader created\n');
        const role = JSON.parse(await admin.ok(['get', 'role', 'cache-reader', '-n', 'default', '-o', 'json'])) as {
          rules: unknown[];
        };
        expect(role.rules).toEqual([
          { apiGroups: ['cache.example.com'], resources: ['caches'], verbs: ['get', 'list'] },
        ]);
        const binding = JSON.parse(
          await admin.ok(['get', 'rolebinding', 'cache-reader', '-n', 'default', '-o', 'json']),
        ) as { roleRef: unknown; subjects: unknown[] };
        expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cache-reader' });
        expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'ctl', namespace: 'default' }]);
        await admin.ok(['delete', 'rolebinding,role', 'cache-reader', '-n', 'default']);
        await admin.ok(['delete', 'clusterrolebinding,clusterrole', 'cache-reader']);
      });

      it('its kubeconfig can list and patch caches and patch caches/status in default', async () => {
        expect((await ctl.ok(['get', 'caches'])).split('\n')[1]).toMatch(/^c1\s+\d+s$/);
        expect(await ctl.ok(['patch', 'cache', 'c1', '--type=merge', '-p', '{"spec":{"size":2}}'])).toBe(
          'cache.cache.example.com/c1 patched\n',
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
        ).toBe('cache.cache.example.com/c1 patched\n');
        const c1 = JSON.parse(await ctl.ok(['get', 'cache', 'c1', '-o', 'json'])) as { spec: unknown; status: unknown };
        expect([c1.spec, c1.status]).toEqual([{ size: 2 }, { ready: true }]);
      });

      it("everything outside the Role gets kube's exact 403", async () => {
        const configmaps = await ctl.kubectl(['get', 'configmaps']);
        expect(configmaps.code).toBe(1);
        expect(configmaps.stderr).toBe(`${forbidden(SA_USER, 'list', 'configmaps', '', 'default')}\n`);

        const del = await ctl.kubectl(['delete', 'cache', 'c1']);
        expect(del.code).toBe(1);
        expect(del.stderr).toBe(`${forbidden(SA_USER, 'delete', 'caches', 'cache.example.com', 'default', 'c1')}\n`);

        const create = await ctl.kubectl(['create', '-f', '-'], cache('c9', 'default'));
        expect(create.code).toBe(1);
        expect(create.stderr).toBe(
          `${forbidden(SA_USER, 'create', 'caches', 'cache.example.com', 'default').replace('(Forbidden): ', '(Forbidden): error when creating "STDIN": ')}\n`,
        );

        // A RoleBinding grants in its own namespace only.
        const other = await ctl.kubectl(['get', 'caches', '-n', 'other']);
        expect(other.code).toBe(1);
        expect(other.stderr).toBe(`${forbidden(SA_USER, 'list', 'caches', 'cache.example.com', 'other')}\n`);
        expect(await admin.ok(['get', 'cache', 'c1', '-o', 'name'])).toBe('cache.cache.example.com/c1\n');
      });
    });

    // -----------------------------------------------------------------------------------------
    describe('2. kubectl auth can-i and auth whoami', () => {
      it('can-i answers yes (exit 0) and no (exit 1), for the admin and, with --as, for the ServiceAccount', async () => {
        const mine = await admin.kubectl(['auth', 'can-i', 'create', 'caches.cache.example.com']);
        expect([mine.stdout, mine.code]).toEqual(['yes\n', 0]);

        const asSa = (args: string[]) => admin.kubectl(['auth', 'can-i', ...args, `--as=${SA_USER}`]);
        const create = await asSa(['create', 'caches.cache.example.com']);
        expect([create.stdout, create.code]).toEqual(['no\n', 1]);
        const patch = await asSa(['patch', 'caches.cache.example.com']);
        expect([patch.stdout, patch.code]).toEqual(['yes\n', 0]);
        const status = await asSa(['update', 'caches.cache.example.com', '--subresource=status']);
        expect([status.stdout, status.code]).toEqual(['yes\n', 0]);
        const elsewhere = await asSa(['list', 'caches.cache.example.com', '-n', 'other']);
        expect([elsewhere.stdout, elsewhere.code]).toEqual(['no\n', 1]);
        // Impersonating a group: system:masters may do anything.
        const group = await admin.kubectl([
          'auth',
          'can-i',
          'delete',
          'caches.cache.example.com',
          '--as=someone',
          '--as-group=system:masters',
        ]);
        expect([group.stdout, group.code]).toEqual(['yes\n', 0]);
      });

      it('can-i --list for the ServiceAccount shows its two rules beside the basic ones', async () => {
        const rows = canIRows(await admin.ok(['auth', 'can-i', '--list', `--as=${SA_USER}`]));
        expect(rows).toContain('caches.cache.example.com | [] | [] | [get list watch update patch]');
        expect(rows).toContain('caches.cache.example.com/status | [] | [] | [get update patch]');
        // ServiceAccounts may also read the issuer discovery documents (system:service-account-issuer-discovery).
        expect(rows).toContain('[/.well-known/openid-configuration] | [] | [get]');
        expect(rows).toContain('[/openid/v1/jwks] | [] | [get]');
        expect(rows.filter((r) => r.includes('configmaps'))).toEqual([]);
      });

      it('a token-file user with no binding: 403 on a custom resource list; can-i --list shows only the basic rules', async () => {
        const r = await as('bob').kubectl(['get', 'caches']);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(`${forbidden('bob', 'list', 'caches', 'cache.example.com', 'default')}\n`);
        const all = await as('bob').kubectl(['get', 'caches', '-A']);
        expect(all.stderr).toBe(
          'Error from server (Forbidden): caches.cache.example.com is forbidden: User "bob" cannot list resource "caches" in API group "cache.example.com" at the cluster scope\n',
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
      const grantAdminToBob = userBinding('bob-admin', 'team-a', 'ClusterRole', 'admin', 'bob');

      it('edit alone does not let alice create RoleBindings at all', async () => {
        await admin.ok(['apply', '-f', '-'], userBinding('alice-edit', 'team-a', 'ClusterRole', 'edit', 'alice'));
        const r = await as('alice').kubectl(['create', '-f', '-'], grantAdminToBob);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          'Error from server (Forbidden): error when creating "STDIN": rolebindings.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "team-a"\n',
        );
      });

      it('allowed to create RoleBindings, alice still cannot grant admin, which she does not hold; she can grant edit', async () => {
        // The right to write bindings, not the right to hand out any role (that would be `bind`/`escalate`).
        await admin.ok(
          ['apply', '-f', '-'],
          `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: binder, namespace: team-a}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [rolebindings], verbs: [create, get, list, delete]}
---${userBinding('alice-binder', 'team-a', 'Role', 'binder', 'alice')}`,
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
        expect((await admin.kubectl(['get', 'rolebinding', 'bob-admin', '-n', 'team-a'])).code).toBe(1);

        expect(
          await as('alice').ok(['create', '-f', '-'], userBinding('bob-edit', 'team-a', 'ClusterRole', 'edit', 'bob')),
        ).toBe('rolebinding.rbac.authorization.k8s.io/bob-edit created\n');
      });

      it('the admin can grant admin, and bob then holds it', async () => {
        const before = await as('bob').kubectl(['auth', 'can-i', 'create', 'roles', '-n', 'team-a']);
        expect([before.stdout, before.code]).toEqual(['no\n', 1]);
        expect(await admin.ok(['create', '-f', '-'], grantAdminToBob)).toBe(
          'rolebinding.rbac.authorization.k8s.io/bob-admin created\n',
        );
        const after = await as('bob').kubectl(['auth', 'can-i', 'create', 'roles', '-n', 'team-a']);
        expect([after.stdout, after.code]).toEqual(['yes\n', 0]);
        // Holding admin there, bob may now grant it there himself.
        expect(
          await as('bob').ok(
            ['create', '-f', '-'],
            userBinding('vera-admin', 'team-a', 'ClusterRole', 'admin', 'vera'),
          ),
        ).toBe('rolebinding.rbac.authorization.k8s.io/vera-admin created\n');
      });
    });

    // -----------------------------------------------------------------------------------------
    describe('4. ClusterRole aggregation', () => {
      const CACHES_VIEW = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: caches-view
  labels: {rbac.authorization.k8s.io/aggregate-to-view: "true"}
rules:
- {apiGroups: [cache.example.com], resources: [caches], verbs: [get, list, watch]}
`;
      const CACHES_RULE = { apiGroups: ['cache.example.com'], resources: ['caches'], verbs: ['get', 'list', 'watch'] };
      const rulesOf = async (role: string): Promise<unknown[]> =>
        (JSON.parse(await admin.ok(['get', 'clusterrole', role, '-o', 'json'])) as { rules?: unknown[] }).rules ?? [];

      it('a ClusterRole labelled aggregate-to-view joins view (and edit and admin, which aggregate view); a view user can then get caches', async () => {
        await admin.ok(['apply', '-f', '-'], userBinding('vera-view', 'default', 'ClusterRole', 'view', 'vera'));
        const before = await as('vera').kubectl(['get', 'cache', 'c1']);
        expect(before.stderr).toBe(`${forbidden('vera', 'get', 'caches', 'cache.example.com', 'default', 'c1')}\n`);
        expect(await rulesOf('view')).not.toContainEqual(CACHES_RULE);

        expect(await admin.ok(['apply', '-f', '-'], CACHES_VIEW)).toBe(
          'clusterrole.rbac.authorization.k8s.io/caches-view created\n',
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

        expect(await as('vera').ok(['get', 'cache', 'c1', '-o', 'name'])).toBe('cache.cache.example.com/c1\n');
        expect((await as('vera').ok(['get', 'caches'])).split('\n')[1]).toMatch(/^c1\s+\d+s$/);
        // Only what was aggregated: view still cannot delete, and its binding is still namespaced.
        expect((await as('vera').kubectl(['delete', 'cache', 'c1'])).stderr).toBe(
          `${forbidden('vera', 'delete', 'caches', 'cache.example.com', 'default', 'c1')}\n`,
        );
        expect((await as('vera').kubectl(['get', 'caches', '-n', 'other'])).stderr).toBe(
          `${forbidden('vera', 'list', 'caches', 'cache.example.com', 'other')}\n`,
        );
      });

      it('deleting the labelled ClusterRole takes its rules out of view again', async () => {
        await admin.ok(['delete', 'clusterrole', 'caches-view']);
        await eventually('view without caches-view', async () =>
          !(await rulesOf('view')).some((r) => JSON.stringify(r) === JSON.stringify(CACHES_RULE)) ? true : undefined,
        );
        const r = await as('vera').kubectl(['get', 'cache', 'c1']);
        expect(r.stderr).toBe(`${forbidden('vera', 'get', 'caches', 'cache.example.com', 'default', 'c1')}\n`);
      });
    });

    // -----------------------------------------------------------------------------------------
    describe('5. the audit log', () => {
      const events = (): AuditEvent[] =>
        readFileSync(auditLog(), 'utf8')
          .split('\n')
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
          requestURI: expect.stringMatching(/^\/api\/v1\/namespaces\/default\/configmaps(\?|$)/) as unknown,
          verb: 'create',
          user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
          objectRef: { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' },
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
          metadata: { name: 'audited', namespace: 'default' },
          data: { k: 'v' },
        });
        // The RequestReceived line is written before authorization and the response.
        expect(received.responseStatus).toBeUndefined();
        expect(received.responseObject).toBeUndefined();
      });

      it('a denied custom resource list: Metadata level (no bodies), 403, decision forbid', async () => {
        expect((await as('bob').kubectl(['get', 'caches', '-n', 'other'])).code).toBe(1);
        const lines = await stagesOf(
          'bob listing caches',
          (e) => e.user.username === 'bob' && e.objectRef?.resource === 'caches' && e.objectRef.namespace === 'other',
        );
        expect(lines.map((e) => e.stage)).toEqual(['RequestReceived', 'ResponseComplete']);
        const done = lines[1]!;
        expect(done).toMatchObject({
          level: 'Metadata',
          verb: 'list',
          objectRef: { resource: 'caches', namespace: 'other', apiGroup: 'cache.example.com', apiVersion: 'v1' },
          responseStatus: { code: 403 },
          annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' },
        });
        expect(done.requestObject).toBeUndefined();
        expect(done.responseObject).toBeUndefined();
      });

      it("an RBAC allow carries kube's reason; an impersonated request names both users", async () => {
        await as('vera').ok(['get', 'configmaps', '-n', 'team-a']); // vera-admin from topic 3
        const vera = (
          await stagesOf(
            'vera listing configmaps',
            (e) => e.user.username === 'vera' && e.verb === 'list' && e.objectRef?.resource === 'configmaps',
          )
        ).find((e) => e.stage === 'ResponseComplete')!;
        expect(vera.annotations).toEqual({
          'authorization.k8s.io/decision': 'allow',
          'authorization.k8s.io/reason':
            'RBAC: allowed by RoleBinding "vera-admin/team-a" of ClusterRole "admin" to User "vera"',
        });

        await admin.ok(['get', 'caches', '-n', 'default', `--as=${SA_USER}`]);
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
        const r = await server.request('/api/v1/namespaces/default/configmaps/audited');
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

        const mine = await server.request('/api/v1/namespaces/default/configmaps/audited', {
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
