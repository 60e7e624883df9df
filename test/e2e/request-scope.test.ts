// Requests at the scope of the kind their path names, against the real binary on both storage
// backends. kube routes a cluster-scoped kind at the group version's root only, a namespaced kind
// under /namespaces/{namespace}/ (and at the root for list and watch across namespaces), so a
// request authorized in one namespace never reaches a kind that lives outside it:
//   1. a table over every resource and subresource discovery lists (built-in, and a namespaced
//      and a cluster-scoped CRD with status and scale), under both URL shapes and every verb,
//      each answered as kube's router answers it (installer.go's routes behind go-restful's
//      404 and 405; apiextensions' crdHandler for custom resources);
//   2. RBAC: a user with `*` on `*` in one namespace, one with `view` there, one with nothing,
//      over HTTP and a WebSocket watch: the escalations through /namespaces/A/namespaces and the
//      namespaced access review are 404 (403 without rights), and namespace B survives.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type EtcdProcess, startEtcd } from '../helpers/etcd.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { failureStatus } from '../helpers/crds.js';

const NS_A = 'scope-a';
const NS_B = 'scope-b';
const GROUP = 'scope.example.com';
/** A name nothing has: a served get, update, patch or delete of it changes nothing. */
const ABSENT = 'scope-probe-absent';
/** A label selector nothing matches: a served deletecollection deletes nothing. */
const SELECT_NOTHING = 'labelSelector=scope-probe%3Dabsent';

const TOKENS = {
  admin: 'scope-admin-token-0123456789',
  // A Role granting * on * in scope-a, bound in scope-a.
  eve: 'scope-eve-token-0123456789',
  // The `view` ClusterRole (which reads namespaces) bound in scope-a.
  val: 'scope-val-token-0123456789',
  // Bound to nothing.
  nobody: 'scope-nobody-token-0123456789',
};
const TOKEN_FILE = [
  `${TOKENS.admin},admin,uid-admin,"system:masters"`,
  `${TOKENS.eve},eve,uid-eve`,
  `${TOKENS.val},val,uid-val`,
  `${TOKENS.nobody},nobody,uid-nobody`,
  '',
].join('\n');

/** The router's answers, as kube's go-restful container words them (NewGenericServerResponse). */
const NO_ROUTE = failureStatus(404, 'NotFound', 'the server could not find the requested resource', {});
const NO_METHOD = failureStatus(
  405,
  'MethodNotAllowed',
  'the server does not allow this method on the requested resource',
  {},
);

const scaledCrd = (plural: string, kind: string, scope: 'Namespaced' | 'Cluster') => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP,
    scope,
    names: { plural, singular: kind.toLowerCase(), kind },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
});

interface Answer {
  status: number;
  body: string;
}

/**
 * One request as `token`. A served watch is left as soon as its 200 arrives: the answer is what
 * is under test, not the stream.
 */
interface ProbeOptions {
  token?: string;
  body?: unknown;
  contentType?: string;
}

function probe(s: ServerProcess, method: string, path: string, opts: ProbeOptions = {}): Promise<Answer> {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? TOKENS.admin}` };
  if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${s.url}${path}`, { method, ca: s.ca, headers, agent: false, timeout: 10_000 }, (res) => {
      if (res.statusCode === 200 && /[?&]watch=true/.test(path)) {
        res.destroy();
        resolve({ status: 200, body: '' });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function must(s: ServerProcess, method: string, path: string, body: unknown): Promise<void> {
  const r = await probe(s, method, path, { body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.body}`);
}

/** A watch over WebSocket as `token`: 101 once it opens (then closed), else the refusal's status. */
function webSocketWatch(s: ServerProcess, path: string, token: string): Promise<number> {
  const ws = new WebSocket(`${s.url.replace('https', 'wss')}${path}`, [], {
    ca: s.ca,
    headers: { authorization: `Bearer ${token}` },
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', reject);
  });
}

/** kube's 403 for a request in a namespace. */
function forbidden(
  user: string,
  verb: string,
  resource: string,
  group: string,
  namespace: string,
  name?: string,
): Record<string, unknown> {
  const what = `${group ? `${resource}.${group}` : resource}${name ? ` "${name}"` : ''}`;
  const why = `User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${namespace}"`;
  const details = { ...(name ? { name } : {}), ...(group ? { group } : {}), kind: resource };
  return failureStatus(403, 'Forbidden', `${what} is forbidden: ${why}`, details);
}

// ---------------------------------------------------------------------------------------------
// What discovery serves

interface Served {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  root: string;
  plural: string;
  /** '' for the resource itself. */
  sub: string;
  namespaced: boolean;
  verbs: string[];
  /** Served by apiextensions' CRD handler rather than go-restful routes. */
  custom: boolean;
}

interface ApiResourceList {
  resources: { name: string; namespaced: boolean; verbs: string[] }[];
}

async function getJson<T>(s: ServerProcess, path: string): Promise<T> {
  const r = await probe(s, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as T;
}

/** Every resource and subresource of every served group version, from legacy discovery. */
async function servedResources(s: ServerProcess): Promise<Served[]> {
  const roots = (await getJson<{ versions: string[] }>(s, '/api')).versions.map((v) => ({
    root: `/api/${v}`,
    group: '',
  }));
  const groups = await getJson<{ groups: { name: string; versions: { groupVersion: string }[] }[] }>(s, '/apis');
  for (const g of groups.groups)
    for (const v of g.versions) roots.push({ root: `/apis/${v.groupVersion}`, group: g.name });
  const served: Served[] = [];
  for (const { root, group } of roots) {
    for (const r of (await getJson<ApiResourceList>(s, root)).resources) {
      const [plural, sub = ''] = r.name.split('/');
      served.push({ root, plural: plural!, sub, namespaced: r.namespaced, verbs: r.verbs, custom: group === GROUP });
    }
  }
  return served;
}

// ---------------------------------------------------------------------------------------------
// kube's answer per resource, URL shape and verb

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
const RESOURCE_VERBS: Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
/** A subresource's path names an object, so its methods are these verbs. */
const SUBRESOURCE_VERBS: Verb[] = ['get', 'create', 'update', 'patch', 'delete'];
/** The verbs routed at the collection path (LIST, POST, DELETECOLLECTION); the rest at the object's. */
const COLLECTION_VERBS = new Set<Verb>(['list', 'watch', 'create', 'deletecollection']);
const ACROSS_NAMESPACES = new Set<Verb>(['list', 'watch']);

type Want = 'served' | 404 | 405;

function kubeAnswer(r: Served, namespacedPath: boolean, verb: Verb): Want {
  if (r.custom) {
    // crdHandler.ServeHTTP: a request whose namespace disagrees with the CRD's scope goes to the
    // 404 delegate, list and watch of a namespaced CRD across namespaces aside; serveStatus and
    // serveScale answer other verbs with NewMethodNotSupported.
    if (namespacedPath !== r.namespaced && !(r.namespaced && ACROSS_NAMESPACES.has(verb))) return 404;
    return !r.sub || r.verbs.includes(verb) ? 'served' : 405;
  }
  if (namespacedPath !== r.namespaced) {
    // A cluster-scoped kind has no route under a namespace; a namespaced kind has, at the root,
    // its collection's LIST and WATCHLIST, when it lists.
    if (namespacedPath || r.sub || !COLLECTION_VERBS.has(verb) || !r.verbs.includes('list')) return 404;
    return ACROSS_NAMESPACES.has(verb) ? 'served' : 405;
  }
  if (r.verbs.includes(verb)) return 'served';
  // go-restful: 405 when the path has a route for another method, 404 when it has none.
  const routedHere = r.sub
    ? r.verbs
    : r.verbs.filter((v) => COLLECTION_VERBS.has(v as Verb) === COLLECTION_VERBS.has(verb));
  return routedHere.length ? 405 : 404;
}

const METHODS: Record<Verb, string> = {
  get: 'GET',
  list: 'GET',
  watch: 'GET',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETE',
};

/** The request for `verb` on `r` under one URL shape: an absent object, a selector matching nothing. */
function requestFor(r: Served, namespacedPath: boolean, verb: Verb): { method: string; path: string } & ProbeOptions {
  const collection = `${r.root}${namespacedPath ? `/namespaces/${NS_A}` : ''}/${r.plural}`;
  const item = `${collection}/${ABSENT}${r.sub ? `/${r.sub}` : ''}`;
  const method = METHODS[verb];
  switch (verb) {
    case 'list':
      return { method, path: `${collection}?${SELECT_NOTHING}` };
    case 'watch':
      return { method, path: `${collection}?watch=true&${SELECT_NOTHING}` };
    case 'deletecollection':
      return { method, path: `${collection}?${SELECT_NOTHING}` };
    case 'create':
      return { method, path: r.sub ? item : collection, body: {} };
    case 'update':
      return { method, path: item, body: {} };
    case 'patch':
      return { method, path: item, body: {}, contentType: 'application/merge-patch+json' };
    default:
      return { method, path: item };
  }
}

/** What is wrong with `got` for `want`, or undefined. */
function mismatch(r: Served, want: Want, got: Answer): string | undefined {
  const status = (() => {
    try {
      return JSON.parse(got.body) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  })();
  const routerNotFound = got.status === 404 && status?.['message'] === NO_ROUTE['message'];
  if (want === 'served') {
    if (got.status >= 500 || got.status === 405 || routerNotFound)
      return `want it served, got ${got.status} ${got.body.slice(0, 200)}`;
    return undefined;
  }
  const same = (want: Record<string, unknown>): boolean => JSON.stringify(status) === JSON.stringify(want);
  if (want === 404)
    return same(NO_ROUTE) ? undefined : `want the router's 404, got ${got.status} ${got.body.slice(0, 200)}`;
  // The CRD handler's 405 names the resource (its text is asserted in custom-resources.test.ts).
  const ok = r.custom ? got.status === 405 && status?.['reason'] === 'MethodNotAllowed' : same(NO_METHOD);
  return ok ? undefined : `want 405, got ${got.status} ${got.body.slice(0, 200)}`;
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

// ---------------------------------------------------------------------------------------------

interface Backend {
  name: string;
  start(): Promise<{ args: string[]; stop(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  { name: 'sqlite', start: async () => ({ args: [], stop: async () => {} }) },
  {
    name: 'etcd',
    start: async () => {
      const etcd: EtcdProcess = await startEtcd();
      return { args: ['--etcd-servers', etcd.endpoint], stop: () => etcd.destroy() };
    },
  },
];

describe.each(BACKENDS)('on $name', (backend) => {
  let server: ServerProcess;
  let stopBackend: () => Promise<void> = async () => {};
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'request-scope-'));
    writeFileSync(join(scratch, 'tokens.csv'), TOKEN_FILE, { mode: 0o600 });
    const started = await backend.start();
    stopBackend = started.stop;
    server = await startServerProcess({ args: [...started.args, '--token-auth-file', join(scratch, 'tokens.csv')] });
    for (const ns of [NS_A, NS_B]) {
      await must(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    for (const crd of [scaledCrd('gizmos', 'Gizmo', 'Namespaced'), scaledCrd('dials', 'Dial', 'Cluster')]) {
      await must(server, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      const collection = `/apis/${GROUP}/v1/${crd.spec.names.plural}`;
      const served = async (): Promise<true | undefined> =>
        (await probe(server, 'GET', collection)).status === 200 ? true : undefined;
      await eventually(`${crd.metadata.name} served`, served);
    }
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await must(server, 'POST', `${rbac}/namespaces/${NS_A}/roles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'everything', namespace: NS_A },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    });
    const binding = (name: string, kind: 'Role' | 'ClusterRole', role: string, user: string) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: NS_A },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
    await must(
      server,
      'POST',
      `${rbac}/namespaces/${NS_A}/rolebindings`,
      binding('eve-everything', 'Role', 'everything', 'eve'),
    );
    await must(
      server,
      'POST',
      `${rbac}/namespaces/${NS_A}/rolebindings`,
      binding('val-view', 'ClusterRole', 'view', 'val'),
    );
  });

  afterAll(async () => {
    await server?.stop();
    await stopBackend();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('every served resource and subresource, under both URL shapes and every verb, answers as kube routes it', async () => {
    const served = await servedResources(server);
    // The table covers what it must, whatever else is served: the kinds of the escalations, a
    // namespaced and a create-only subresource, and both CRDs' status and scale.
    const names = served.map((r) => `${r.root}/${r.plural}${r.sub ? `/${r.sub}` : ''}`);
    expect(names).toEqual(
      expect.arrayContaining([
        '/api/v1/namespaces',
        '/api/v1/namespaces/status',
        '/api/v1/namespaces/finalize',
        '/api/v1/configmaps',
        '/api/v1/serviceaccounts/token',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        '/apis/authorization.k8s.io/v1/localsubjectaccessreviews',
        '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        `/apis/${GROUP}/v1/gizmos`,
        `/apis/${GROUP}/v1/gizmos/status`,
        `/apis/${GROUP}/v1/gizmos/scale`,
        `/apis/${GROUP}/v1/dials`,
        `/apis/${GROUP}/v1/dials/status`,
        `/apis/${GROUP}/v1/dials/scale`,
      ]),
    );
    const rows = served.flatMap((r) =>
      [true, false].flatMap((namespacedPath) =>
        (r.sub ? SUBRESOURCE_VERBS : RESOURCE_VERBS).map((verb) => ({ r, namespacedPath, verb })),
      ),
    );
    const wrong: string[] = [];
    await inParallel(rows, 8, async ({ r, namespacedPath, verb }) => {
      const req = requestFor(r, namespacedPath, verb);
      const got = await probe(server, req.method, req.path, req);
      const problem = mismatch(r, kubeAnswer(r, namespacedPath, verb), got);
      if (problem) wrong.push(`${verb} ${req.method} ${req.path}: ${problem}`);
    });
    expect(wrong.sort()).toEqual([]);
    // Nothing a served row reached was changed.
    for (const ns of [NS_A, NS_B]) {
      expect(JSON.parse((await probe(server, 'GET', `/api/v1/namespaces/${ns}`)).body)).toMatchObject({
        status: { phase: 'Active' },
      });
    }
  });

  describe('RBAC: rights in one namespace stay in it', () => {
    const A_NAMESPACES = `/api/v1/namespaces/${NS_A}/namespaces`;
    const REVIEWS = '/apis/authorization.k8s.io/v1';
    const json = (r: Answer): unknown => JSON.parse(r.body);
    /** What the admin sees of scope-b: its phase, deletion and labels. */
    const namespaceB = async (): Promise<unknown> => {
      const r = await probe(server, 'GET', `/api/v1/namespaces/${NS_B}`);
      const ns = json(r) as {
        metadata: { deletionTimestamp?: string; labels?: Record<string, string> };
        status: { phase: string };
      };
      return {
        status: r.status,
        phase: ns.status.phase,
        deletionTimestamp: ns.metadata.deletionTimestamp,
        labels: ns.metadata.labels,
      };
    };
    const untouchedB = {
      status: 200,
      phase: 'Active',
      deletionTimestamp: undefined,
      labels: { 'kubernetes.io/metadata.name': NS_B },
    };

    it('a Role with * on * in A neither deletes, patches, replaces, creates nor lists namespaces through A: 404', async () => {
      // Her Role is real: she writes in A.
      const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'eve-was-here' } };
      const cm = await probe(server, 'POST', `/api/v1/namespaces/${NS_A}/configmaps`, {
        token: TOKENS.eve,
        body: configMap,
      });
      expect(cm.status, cm.body).toBe(201);
      const objectB = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS_B } };
      const escalations: [string, string, unknown?, string?][] = [
        ['DELETE', `${A_NAMESPACES}/${NS_B}`],
        [
          'PATCH',
          `${A_NAMESPACES}/${NS_B}`,
          { metadata: { labels: { owned: 'by-eve' } } },
          'application/merge-patch+json',
        ],
        ['PUT', `${A_NAMESPACES}/${NS_B}`, { ...objectB, metadata: { name: NS_B, labels: { owned: 'by-eve' } } }],
        ['POST', A_NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scope-c' } }],
        ['DELETE', A_NAMESPACES],
        ['GET', A_NAMESPACES],
        ['GET', `${A_NAMESPACES}?watch=true`],
        ['GET', `/api/v1/watch/namespaces/${NS_A}/namespaces/${NS_B}`],
        ['PUT', `${A_NAMESPACES}/${NS_B}/finalize`, { ...objectB, spec: { finalizers: [] } }],
      ];
      for (const [method, path, body, contentType] of escalations) {
        const r = await probe(server, method, path, {
          token: TOKENS.eve,
          body,
          ...(contentType ? { contentType } : {}),
        });
        const request = `${method} ${path}`;
        expect({ request, status: r.status, body: json(r) }).toEqual({ request, status: 404, body: NO_ROUTE });
      }
      // The namespace's own path is authorized in its own namespace, where she has nothing.
      const own = await probe(server, 'DELETE', `/api/v1/namespaces/${NS_B}`, { token: TOKENS.eve });
      expect(json(own)).toEqual(forbidden('eve', 'delete', 'namespaces', '', NS_B, NS_B));
      expect(await namespaceB()).toEqual(untouchedB);
      expect((await probe(server, 'GET', '/api/v1/namespaces/scope-c')).status).toBe(404);
    });

    it('view in A lists and watches no namespaces through A, over HTTP or a WebSocket: 404', async () => {
      // view reads in A: the same WebSocket watch of A's configmaps opens.
      expect(await webSocketWatch(server, `/api/v1/namespaces/${NS_A}/configmaps?watch=true`, TOKENS.val)).toBe(101);
      expect(await webSocketWatch(server, `${A_NAMESPACES}?watch=true`, TOKENS.val)).toBe(404);
      for (const path of [A_NAMESPACES, `${A_NAMESPACES}?watch=true`, `${A_NAMESPACES}/${NS_B}`]) {
        const r = await probe(server, 'GET', path, { token: TOKENS.val });
        expect({ path, status: r.status, body: json(r) }).toEqual({ path, status: 404, body: NO_ROUTE });
      }
      const why = 'User "val" cannot list resource "namespaces" in API group "" at the cluster scope';
      expect(json(await probe(server, 'GET', '/api/v1/namespaces', { token: TOKENS.val }))).toEqual(
        failureStatus(403, 'Forbidden', `namespaces is forbidden: ${why}`, { kind: 'namespaces' }),
      );
    });

    it('a SubjectAccessReview under A answers nothing: 404; the LocalSubjectAccessReview of A is the namespaced one', async () => {
      const asked = { verb: 'delete', resource: 'namespaces', name: NS_B };
      const about = { user: 'admin', groups: ['system:masters'], resourceAttributes: asked };
      const sar = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: about };
      const leaked = await probe(server, 'POST', `${REVIEWS}/namespaces/${NS_A}/subjectaccessreviews`, {
        token: TOKENS.eve,
        body: sar,
      });
      expect({ status: leaked.status, body: json(leaked) }).toEqual({ status: 404, body: NO_ROUTE });
      const cluster = await probe(server, 'POST', `${REVIEWS}/subjectaccessreviews`, { token: TOKENS.eve, body: sar });
      expect(cluster.status, cluster.body).toBe(403);
      const local = await probe(server, 'POST', `${REVIEWS}/namespaces/${NS_A}/localsubjectaccessreviews`, {
        token: TOKENS.eve,
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'LocalSubjectAccessReview',
          metadata: { namespace: NS_A },
          spec: { ...about, resourceAttributes: { ...asked, namespace: NS_A } },
        },
      });
      expect(local.status, local.body).toBe(201);
    });

    it('without rights in A the same paths are 403 first, as kube authorizes before it routes', async () => {
      const as = { token: TOKENS.nobody };
      const deleted = await probe(server, 'DELETE', `${A_NAMESPACES}/${NS_B}`, as);
      expect(json(deleted)).toEqual(forbidden('nobody', 'delete', 'namespaces', '', NS_A, NS_B));
      expect(json(await probe(server, 'GET', A_NAMESPACES, as))).toEqual(
        forbidden('nobody', 'list', 'namespaces', '', NS_A),
      );
      const review = await probe(server, 'POST', `${REVIEWS}/namespaces/${NS_A}/subjectaccessreviews`, {
        ...as,
        body: {},
      });
      expect(json(review)).toEqual(forbidden('nobody', 'create', 'subjectaccessreviews', 'authorization.k8s.io', NS_A));
      expect(await namespaceB()).toEqual(untouchedB);
    });
  });
});
