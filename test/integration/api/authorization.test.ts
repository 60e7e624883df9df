// Who may do what, over HTTPS against an in-process server with RBAC (the default mode): kube's
// bootstrap roles, 403 texts, RoleBindings taking effect, escalation prevention, aggregation, the
// access reviews, impersonation, ServiceAccount tokens from TokenRequest, client certificates and
// the audit log. Users come from a token file: admin (system:masters), alice and bob (nobody).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { startServer, type ServerHandle } from '../../../server/index.js';
import { type Issued, issue } from '../../helpers/client-certs.js';
import { request } from '../../helpers/server-process.js';

type Json = Record<string, unknown> & { metadata?: Record<string, unknown>; status?: Record<string, unknown> };

const ALICE = 'alice-token';
const BOB = 'bob-token';
const NS = '/api/v1/namespaces';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

let dir: string;
let server: ServerHandle;
let clientCa: Issued;
let auditLog: string;

/** One request as `token` (the admin's by default), with extra headers; the body as JSON. */
async function call(
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; headers?: Record<string, string>; cert?: Issued } = {},
): Promise<{ status: number; json: Json; headers: Record<string, unknown> }> {
  const token = opts.token === undefined ? server.token : opts.token;
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...opts.headers,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  const r = await new Promise<{ status: number; text: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpsRequest(
      server.url + path,
      {
        method,
        ca: server.caCert,
        headers,
        agent: false,
        ...(opts.cert ? { cert: opts.cert.cert, key: opts.cert.key } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  return { status: r.status, json: r.text ? (JSON.parse(r.text) as Json) : {}, headers: r.headers };
}

const ok = async (method: string, path: string, body?: unknown): Promise<Json> => {
  const r = await call(method, path, { body });
  expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
  return r.json;
};

const roleBinding = (ns: string, name: string, role: { kind: string; name: string }, subjects: unknown[]): Json => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name, namespace: ns },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', ...role },
  subjects,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'authz-'));
  clientCa = await issue({ subject: 'CN=test-client-ca', ca: true });
  writeFileSync(join(dir, 'client-ca.crt'), clientCa.cert);
  writeFileSync(
    join(dir, 'tokens.csv'),
    `admin-token,admin,1,"system:masters"\n${ALICE},alice,2\n${BOB},bob,3,"team"\n`,
  );
  auditLog = join(dir, 'audit.log');
  writeFileSync(
    join(dir, 'policy.yaml'),
    [
      'apiVersion: audit.k8s.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      '- level: RequestResponse',
      '  resources: [{group: "", resources: [configmaps]}]',
      '- level: Metadata',
    ].join('\n'),
  );
  server = await startServer({
    storage: 'memory',
    tokenAuthFile: join(dir, 'tokens.csv'),
    clientCAFile: join(dir, 'client-ca.crt'),
    auditPolicyFile: join(dir, 'policy.yaml'),
    auditLogPath: auditLog,
    // Authorization under test, not the loop: this test's own work shares the server's event loop.
    maxEventLoopUtilization: 1,
  });
  for (const ns of ['team-a', 'team-b']) await ok('POST', NS, { metadata: { name: ns } });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RBAC', () => {
  it("creates kube's bootstrap roles, aggregated: admin holds edit's rules, view does not read secrets", async () => {
    const admin = await ok('GET', `${RBAC}/clusterroles/admin`);
    expect(admin.metadata?.['labels']).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    await vi.waitFor(async () => {
      const rules = ((await ok('GET', `${RBAC}/clusterroles/admin`))['rules'] ?? []) as Array<{
        resources?: string[];
        verbs: string[];
      }>;
      expect(rules.some((r) => r.resources?.includes('rolebindings') && r.verbs.includes('create'))).toBe(true);
      expect(rules.some((r) => r.resources?.includes('configmaps') && r.verbs.includes('create'))).toBe(true);
    });
    const view = ((await ok('GET', `${RBAC}/clusterroles/view`))['rules'] ?? []) as Array<{ resources?: string[] }>;
    expect(view.some((r) => r.resources?.includes('configmaps'))).toBe(true);
    expect(view.some((r) => r.resources?.includes('secrets'))).toBe(false);
    const binding = await ok('GET', `${RBAC}/clusterrolebindings/cluster-admin`);
    expect(binding['subjects']).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' },
    ]);
  });

  it("a user without bindings gets kube's 403, naming user, verb, resource, group and namespace", async () => {
    const r = await call('GET', `${NS}/team-a/configmaps`, { token: ALICE });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-a"',
      reason: 'Forbidden',
      details: { kind: 'configmaps' },
      code: 403,
    });
    const named = await call('DELETE', `${RBAC}/clusterroles/admin`, { token: ALICE });
    expect(named.json['message']).toBe(
      'clusterroles.rbac.authorization.k8s.io "admin" is forbidden: User "alice" cannot delete resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
    // Discovery is every authenticated user's (system:discovery).
    expect((await call('GET', '/apis', { token: ALICE })).status).toBe(200);
  });

  it('a RoleBinding grants in its namespace only, and takes effect at once', async () => {
    await ok(
      'POST',
      `${RBAC}/namespaces/team-a/rolebindings`,
      roleBinding('team-a', 'alice-edit', { kind: 'ClusterRole', name: 'edit' }, [{ kind: 'User', name: 'alice' }]),
    );
    await vi.waitFor(async () =>
      expect(
        (await call('POST', `${NS}/team-a/configmaps`, { token: ALICE, body: { metadata: { name: 'by-alice' } } }))
          .status,
      ).toBe(201),
    );
    const elsewhere = await call('POST', `${NS}/team-b/configmaps`, {
      token: ALICE,
      body: { metadata: { name: 'by-alice' } },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.json['message']).toBe(
      'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team-b"',
    );
    // A group subject: bob is in "team".
    await ok(
      'POST',
      `${RBAC}/namespaces/team-b/rolebindings`,
      roleBinding('team-b', 'team-view', { kind: 'ClusterRole', name: 'view' }, [{ kind: 'Group', name: 'team' }]),
    );
    await vi.waitFor(async () =>
      expect((await call('GET', `${NS}/team-b/configmaps`, { token: BOB })).status).toBe(200),
    );
  });

  it('refuses a binding that grants what its writer does not hold, with kube’s text', async () => {
    // edit may not write RoleBindings at all; admin may, but only for what admin holds.
    const asEditor = await call('POST', `${RBAC}/namespaces/team-a/rolebindings`, {
      token: ALICE,
      body: roleBinding('team-a', 'x', { kind: 'ClusterRole', name: 'view' }, []),
    });
    expect(asEditor.json['message']).toBe(
      'rolebindings.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "team-a"',
    );
    await ok(
      'POST',
      `${RBAC}/namespaces/team-a/rolebindings`,
      roleBinding('team-a', 'alice-admin', { kind: 'ClusterRole', name: 'admin' }, [{ kind: 'User', name: 'alice' }]),
    );
    const grant = (name: string, role: string) =>
      call('POST', `${RBAC}/namespaces/team-a/rolebindings`, {
        token: ALICE,
        body: roleBinding('team-a', name, { kind: 'ClusterRole', name: role }, [{ kind: 'User', name: 'bob' }]),
      });
    await vi.waitFor(async () => expect((await grant('bob-view', 'view')).status).toBe(201));
    const r = await grant('bob-root', 'cluster-admin');
    expect(r.status).toBe(403);
    expect(r.json['message']).toMatch(
      /^rolebindings\.rbac\.authorization\.k8s\.io "bob-root" is forbidden: user "alice" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/,
    );
    expect(r.json['message']).toContain('{APIGroups:["*"], Resources:["*"], Verbs:["*"]}');
    expect(r.json['details']).toEqual({ name: 'bob-root', group: 'rbac.authorization.k8s.io', kind: 'rolebindings' });
    // A Role with rules alice lacks (in her namespace: she is admin there, not cluster-wide).
    const role = await call('POST', `${RBAC}/namespaces/team-a/roles`, {
      token: ALICE,
      body: { metadata: { name: 'nodes' }, rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get'] }] },
    });
    expect(role.status).toBe(403);
    expect(role.json['message']).toContain('{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}');
  });

  it('an update that adds a subject to a powerful binding is escalation-checked too', async () => {
    // The admin binds cluster-admin in team-a to nobody; alice (admin there) may update bindings.
    await ok(
      'POST',
      `${RBAC}/namespaces/team-a/rolebindings`,
      roleBinding('team-a', 'root-in-a', { kind: 'ClusterRole', name: 'cluster-admin' }, [
        { kind: 'User', name: 'nobody' },
      ]),
    );
    await vi.waitFor(async () => {
      const r = await call('PATCH', `${RBAC}/namespaces/team-a/rolebindings/root-in-a`, {
        token: ALICE,
        headers: { 'content-type': 'application/merge-patch+json' },
        body: {
          subjects: [
            { kind: 'User', name: 'nobody' },
            { kind: 'User', name: 'alice' },
          ],
        },
      });
      expect(r.status).toBe(403);
      expect(r.json['message']).toContain(
        'user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held',
      );
    });
    // A label, which grants nothing, is hers to change.
    const label = await call('PATCH', `${RBAC}/namespaces/team-a/rolebindings/root-in-a`, {
      token: ALICE,
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { metadata: { labels: { a: 'b' } } },
    });
    expect(label.status, JSON.stringify(label.json)).toBe(200);
  });

  it('an aggregationRule needs full authority: the controller would copy any role into it', async () => {
    await ok('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'role-writer' },
      rules: [
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          verbs: ['create', 'update', 'patch', 'get'],
        },
      ],
    });
    await ok('POST', `${RBAC}/clusterrolebindings`, {
      metadata: { name: 'bob-role-writer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'role-writer' },
      subjects: [{ kind: 'User', name: 'bob' }],
    });
    await vi.waitFor(async () => {
      const r = await call('POST', `${RBAC}/clusterroles`, {
        token: BOB,
        body: {
          metadata: { name: 'bobs-everything' },
          aggregationRule: {
            clusterRoleSelectors: [{ matchLabels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } }],
          },
        },
      });
      expect(r.status).toBe(403);
      expect(r.json['message']).toBe(
        'clusterroles.rbac.authorization.k8s.io "bobs-everything" is forbidden: must have cluster-admin privileges to use the aggregationRule',
      );
    });
  });

  it('blockOwnerDeletion needs permission on the owner’s finalizers (OwnerReferencesPermissionEnforcement)', async () => {
    const owner = await ok('POST', `${NS}/team-a/configmaps`, { metadata: { name: 'owner' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.['uid'] };
    // alice (edit, admin in team-a) may set a reference, not one that holds the owner's deletion.
    const plain = await call('POST', `${NS}/team-a/configmaps`, {
      token: ALICE,
      body: { metadata: { name: 'dep-plain', ownerReferences: [ref] } },
    });
    expect(plain.status, JSON.stringify(plain.json)).toBe(201);
    const blocking = await call('POST', `${NS}/team-a/configmaps`, {
      token: ALICE,
      body: { metadata: { name: 'dep-block', ownerReferences: [{ ...ref, blockOwnerDeletion: true }] } },
    });
    expect(blocking.status).toBe(403);
    expect(blocking.json['message']).toBe(
      'configmaps "dep-block" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>',
    );
    // The admin (system:masters) may.
    expect(
      (
        await call('POST', `${NS}/team-a/configmaps`, {
          body: { metadata: { name: 'dep-block', ownerReferences: [{ ...ref, blockOwnerDeletion: true }] } },
        })
      ).status,
    ).toBe(201);
  });

  it('validates RBAC objects with kube’s messages', async () => {
    const r = await call('POST', `${RBAC}/namespaces/team-a/roles`, {
      body: {
        metadata: { name: 'bad' },
        rules: [{ resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/x'] }],
      },
    });
    expect(r.status).toBe(422);
    expect(r.json['message']).toBe(
      'Role.rbac.authorization.k8s.io "bad" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[1].nonResourceURLs: Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs]',
    );
  });

  it('aggregates a labelled ClusterRole into view, and so into edit and admin', async () => {
    await ok('POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
    });
    for (const role of ['view', 'edit', 'admin']) {
      await vi.waitFor(async () => {
        const rules = ((await ok('GET', `${RBAC}/clusterroles/${role}`))['rules'] ?? []) as Array<{
          resources?: string[];
        }>;
        expect(rules.some((r) => r.resources?.includes('widgets'))).toBe(true);
      });
    }
  });
});

describe('access reviews', () => {
  const review = (kind: string, spec: unknown): Json => ({ apiVersion: 'authorization.k8s.io/v1', kind, spec });

  it('SelfSubjectAccessReview answers for the requester (kubectl auth can-i)', async () => {
    const yes = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      token: ALICE,
      body: review('SelfSubjectAccessReview', {
        resourceAttributes: { namespace: 'team-a', verb: 'create', resource: 'configmaps' },
      }),
    });
    expect(yes.status).toBe(201);
    expect(yes.json.status).toEqual({
      allowed: true,
      reason: expect.stringMatching(
        /^RBAC: allowed by RoleBinding "alice-(admin|edit)\/team-a" of ClusterRole "(admin|edit)" to User "alice"$/,
      ),
    });
    const no = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      token: ALICE,
      body: review('SelfSubjectAccessReview', {
        resourceAttributes: { namespace: 'team-b', verb: 'create', resource: 'configmaps' },
      }),
    });
    expect(no.json.status).toEqual({ allowed: false });
    const both = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      token: ALICE,
      body: review('SelfSubjectAccessReview', {}),
    });
    expect(both.status).toBe(422);
    expect(both.json['message']).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
  });

  it('SubjectAccessReview and LocalSubjectAccessReview answer about someone else', async () => {
    const sar = await call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: review('SubjectAccessReview', {
        user: 'bob',
        groups: ['team'],
        resourceAttributes: { namespace: 'team-b', verb: 'list', resource: 'configmaps' },
      }),
    });
    expect(sar.json.status?.['allowed']).toBe(true);
    const local = await call('POST', '/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews', {
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'LocalSubjectAccessReview',
        metadata: { namespace: 'team-a' },
        spec: { user: 'bob', resourceAttributes: { namespace: 'team-a', verb: 'get', resource: 'configmaps' } },
      },
    });
    expect(local.status, JSON.stringify(local.json)).toBe(201);
    expect(local.json.status, JSON.stringify(local.json)).toMatchObject({ allowed: true });
    expect((await call('GET', '/apis/authorization.k8s.io/v1/subjectaccessreviews')).status).toBe(405);
  });

  it('badly typed reviews are 400s, never a 500 or a wrong answer', async () => {
    const groupsString = await call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: review('SubjectAccessReview', {
        user: 'x',
        groups: 'xx-system:masters-yy',
        resourceAttributes: { verb: 'get', resource: 'secrets' },
      }),
    });
    expect(groupsString.status).toBe(400);
    expect(groupsString.json['message']).toBe(
      'SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal string into Go struct field spec.groups of type []string',
    );
    const pathNumber = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      token: ALICE,
      body: review('SelfSubjectAccessReview', { nonResourceAttributes: { verb: 'get', path: 5 } }),
    });
    expect(pathNumber.status).toBe(400);
    expect((await call('POST', `${NS}/team-a/serviceaccounts/x/constructor`, { body: {} })).status).toBe(404);
  });

  it('SelfSubjectRulesReview lists what the requester may do in a namespace (kubectl auth can-i --list)', async () => {
    const r = await call('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      token: ALICE,
      body: review('SelfSubjectRulesReview', { namespace: 'team-a' }),
    });
    expect(r.status).toBe(201);
    const rules = r.json.status?.['resourceRules'] as Array<{ resources?: string[]; verbs: string[] }>;
    expect(rules.some((x) => x.resources?.includes('configmaps') && x.verbs.includes('create'))).toBe(true);
    expect(r.json.status?.['incomplete']).toBe(false);
  });

  it('SelfSubjectReview says who the server takes the requester for (kubectl auth whoami)', async () => {
    const r = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token: BOB,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(r.status).toBe(201);
    expect(r.json.status).toEqual({
      userInfo: { username: 'bob', uid: '3', groups: ['team', 'system:authenticated'] },
    });
  });
});

describe('impersonation', () => {
  const whoami = (token: string | null, headers: Record<string, string>) =>
    call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token,
      headers,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });

  it('the admin may act as alice, with her rights and not its own', async () => {
    const me = await whoami(server.token, { 'Impersonate-User': 'alice', 'Impersonate-Group': 'devs' });
    expect(me.json.status).toEqual({ userInfo: { username: 'alice', groups: ['devs', 'system:authenticated'] } });
    const r = await call('GET', `${NS}/team-b/configmaps`, { headers: { 'Impersonate-User': 'alice' } });
    expect(r.status).toBe(403);
    expect(r.json['message']).toBe(
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-b"',
    );
  });

  it('a user without the impersonate verb is refused with kube’s text', async () => {
    const r = await whoami(ALICE, { 'Impersonate-User': 'bob' });
    expect(r.status).toBe(403);
    expect(r.json['message']).toBe(
      'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it('groups without a user are a 400', async () => {
    const r = await whoami(server.token, { 'Impersonate-Group': 'devs' });
    expect(r.status).toBe(400);
    expect(r.json['message']).toBe('requested [{Group  devs    }] without impersonating a user');
  });
});

describe('ServiceAccount tokens (TokenRequest)', () => {
  const tokenFor = async (ns: string, name: string, spec: unknown = {}): Promise<{ status: number; json: Json }> =>
    call('POST', `${NS}/${ns}/serviceaccounts/${name}/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
    });

  it('issues a token that authenticates as the ServiceAccount, limited to its bindings, until the account goes', async () => {
    await ok('POST', `${NS}/team-a/serviceaccounts`, { metadata: { name: 'ctl' } });
    const issued = await tokenFor('team-a', 'ctl');
    expect(issued.status, JSON.stringify(issued.json)).toBe(201);
    const token = String(issued.json.status?.['token']);
    expect(token.split('.')).toHaveLength(3);
    expect(Date.parse(String(issued.json.status?.['expirationTimestamp'])) - Date.now()).toBeGreaterThan(3500_000);

    const me = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    const user = me.json.status?.['userInfo'] as {
      username: string;
      groups: string[];
      extra: Record<string, string[]>;
    };
    expect(user.username).toBe('system:serviceaccount:team-a:ctl');
    expect(user.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
    expect(user.extra['authentication.kubernetes.io/credential-id']?.[0]).toMatch(/^JTI=/);

    expect((await call('GET', `${NS}/team-a/configmaps`, { token })).status).toBe(403);
    await ok(
      'POST',
      `${RBAC}/namespaces/team-a/rolebindings`,
      roleBinding('team-a', 'ctl-view', { kind: 'ClusterRole', name: 'view' }, [
        { kind: 'ServiceAccount', name: 'ctl', namespace: 'team-a' },
      ]),
    );
    await vi.waitFor(async () => expect((await call('GET', `${NS}/team-a/configmaps`, { token })).status).toBe(200));

    await ok('DELETE', `${NS}/team-a/serviceaccounts/ctl`);
    await vi.waitFor(async () => expect((await call('GET', `${NS}/team-a/configmaps`, { token })).status).toBe(401));
    // A new account of the same name is not the old one: the old token stays dead.
    await ok('POST', `${NS}/team-a/serviceaccounts`, { metadata: { name: 'ctl' } });
    expect((await call('GET', `${NS}/team-a/configmaps`, { token })).status).toBe(401);
  });

  it('refuses bad requests with kube’s answers', async () => {
    const short = await tokenFor('team-a', 'ctl', { expirationSeconds: 60 });
    expect(short.status).toBe(422);
    expect(short.json['message']).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const missing = await tokenFor('team-a', 'nobody');
    expect(missing.status).toBe(404);
    expect(missing.json['message']).toBe('serviceaccounts "nobody" not found');
    // A forged token (right shape, wrong key) is a 401, never a 500.
    const forged = `${Buffer.from('{"alg":"ES256","kid":"x"}').toString('base64url')}.${Buffer.from('{"iss":"https://kubernetes.default.svc.cluster.local","sub":"system:serviceaccount:team-a:ctl"}').toString('base64url')}.AAAA`;
    expect((await call('GET', '/api', { token: forged })).status).toBe(401);
  });
});

describe('client certificates (--client-ca-file)', () => {
  it('authenticates CN as the user and O as groups; another CA’s certificate is a 401', async () => {
    const carol = await issue({ subject: 'CN=carol,O=devs,O=ops', issuer: clientCa });
    const r = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      token: null,
      cert: carol,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const user = r.json.status?.['userInfo'] as { username: string; groups: string[] };
    expect(user.username).toBe('carol');
    expect(user.groups).toEqual(['devs', 'ops', 'system:authenticated']);
    const otherCa = await issue({ subject: 'CN=other-ca', ca: true });
    const mallory = await issue({ subject: 'CN=admin,O=system:masters', issuer: otherCa });
    const refused = await call('GET', '/api', { token: null, cert: mallory });
    expect(refused.status).toBe(401);
    // The audit event says a certificate was tried (WithFailedAuthenticationAudit's message).
    await vi.waitFor(() => {
      const event = readFileSync(auditLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json)
        .find((e) => e['auditID'] === refused.headers['audit-id']);
      expect(event).toMatchObject({
        stage: 'ResponseStarted',
        responseStatus: { code: 401, message: 'Authentication failed, attempted: x509' },
      });
    });
  });
});

describe('audit', () => {
  it('writes kube’s audit events under the policy, and answers with the Audit-ID', async () => {
    const created = await call('POST', `${NS}/team-a/configmaps`, {
      body: { metadata: { name: 'audited' }, data: { k: 'v' } },
      headers: { 'Audit-ID': 'my-audit-id' },
    });
    expect(created.headers['audit-id']).toBe('my-audit-id');
    const denied = await call('GET', `${NS}/team-b/secrets`, { token: ALICE });
    const id = String(denied.headers['audit-id']);
    await vi.waitFor(() => {
      const events = readFileSync(auditLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      const mine = events.filter((e) => e['auditID'] === 'my-audit-id');
      expect(mine.map((e) => e['stage'])).toEqual(['ResponseComplete']);
      expect(mine[0]).toMatchObject({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'RequestResponse',
        verb: 'create',
        requestURI: '/api/v1/namespaces/team-a/configmaps',
        user: { username: 'admin' },
        objectRef: { resource: 'configmaps', namespace: 'team-a', name: 'audited', apiVersion: 'v1' },
        responseStatus: { code: 201 },
        requestObject: { metadata: { name: 'audited' }, data: { k: 'v' } },
        responseObject: { kind: 'ConfigMap', metadata: { name: 'audited' } },
        annotations: { 'authorization.k8s.io/decision': 'allow' },
      });
      const refusal = events.find((e) => e['auditID'] === id);
      expect(refusal).toMatchObject({
        level: 'Metadata',
        verb: 'list',
        user: { username: 'alice' },
        responseStatus: { code: 403 },
        annotations: { 'authorization.k8s.io/decision': 'forbid' },
      });
      expect(refusal).not.toHaveProperty('responseObject');
    });
  });

  it('audits WebSocket watches as requests: ResponseStarted at the 101, ResponseComplete when the socket closes; refusals with their code', async () => {
    const open = (
      token: string,
      auditID: string,
      path: string,
    ): Promise<{ ws?: WebSocket; status?: number; auditHeader?: string }> =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(`${server.url.replace('https', 'wss')}${NS}/${path}?watch=true`, [], {
          ca: server.caCert,
          headers: { authorization: `Bearer ${token}`, 'Audit-ID': auditID },
        });
        ws.once('open', () => resolve({ ws }));
        ws.once('unexpected-response', (_req, res) =>
          resolve({ status: res.statusCode ?? 0, auditHeader: String(res.headers['audit-id']) }),
        );
        ws.once('error', reject);
      });
    const watched = await open(server.token, 'ws-watch', 'team-a/configmaps');
    watched.ws!.close();
    expect(await open(ALICE, 'ws-refused', 'team-b/secrets')).toEqual({ status: 403, auditHeader: 'ws-refused' });
    await vi.waitFor(() => {
      const events = readFileSync(auditLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Json);
      const watch = events.filter((e) => e['auditID'] === 'ws-watch');
      expect(watch.map((e) => e['stage'])).toEqual(['ResponseStarted', 'ResponseComplete']);
      expect(watch[1]).toMatchObject({
        verb: 'watch',
        user: { username: 'admin' },
        objectRef: { resource: 'configmaps', namespace: 'team-a' },
        responseStatus: { code: 101 },
      });
      // A watch is long-running for audit whatever its answer: its status line is a stage of its own, as in kube.
      const refused = events.filter((e) => e['auditID'] === 'ws-refused');
      expect(refused.map((e) => e['stage'])).toEqual(['ResponseStarted', 'ResponseComplete']);
      expect(refused[1]).toMatchObject({
        verb: 'watch',
        user: { username: 'alice' },
        responseStatus: { code: 403 },
        annotations: { 'authorization.k8s.io/decision': 'forbid' },
      });
    });
  });
});

describe('--service-account-max-token-expiration', () => {
  it('shortens a longer TokenRequest to the maximum, with kube’s warning', async () => {
    const capped = await startServer({ storage: 'memory', serviceAccountMaxTokenExpirationMs: 3_600_000 });
    try {
      const call2 = (method: string, path: string, body: unknown) =>
        request(capped.url + path, {
          method,
          ca: capped.caCert,
          token: capped.token,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await call2('POST', `${NS}/default/serviceaccounts`, { metadata: { name: 'ctl' } })).status).toBe(201);
      const r = await call2('POST', `${NS}/default/serviceaccounts/ctl/token`, {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 7200 },
      });
      expect(r.status, r.body).toBe(201);
      expect(String(r.headers['warning'])).toBe(
        '299 - "requested expiration of 7200 seconds shortened to 3600 seconds"',
      );
      const expires = Date.parse(
        (JSON.parse(r.body) as { status: { expirationTimestamp: string } }).status.expirationTimestamp,
      );
      expect(expires - Date.now()).toBeLessThanOrEqual(3_600_000);
      expect(expires - Date.now()).toBeGreaterThan(3_500_000);
    } finally {
      await capped.close();
    }
  });
});
