// The write path's order, as kube's handlers have it, against an in-process server on both storage
// backends with real HTTPS admission webhooks (their own CA):
// - the output media type is negotiated before anything else: a write whose Accept nothing can
//   satisfy is a 406 that leaves storage as it was (POST, PUT, PATCH, apply, DELETE);
// - a mutating webhook that moves an object to another namespace is refused after admission (kube's
//   BeforeCreate / BeforeUpdate), instead of storing it under the request's key;
// - managedFields are computed before mutating admission: what a webhook adds is nobody's;
// - the audit annotations a webhook returns reach the audit event of every verb, apply included.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { type ServerOptions, startServer, type ServerHandle } from '../../../server/index.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { type AdmissionWebhook, startAdmissionWebhook } from '../../helpers/admission-webhook.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { failureStatus, installCrd, simpleCrd } from '../../helpers/crds.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const AR = '/apis/admissionregistration.k8s.io/v1';
const GROUP = 'wp.example.com';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const CRD = simpleCrd(GROUP, 'widgets', {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
});
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const NOT_ACCEPTABLE = failureStatus(
  406,
  'NotAcceptable',
  'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
);
const WRONG_NAMESPACE = failureStatus(
  400,
  'BadRequest',
  'the namespace of the provided object does not match the namespace sent on the request',
);

let server: ServerHandle;
let call: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: Json }>;
let webhook: AdmissionWebhook | undefined;
let webhookUrl: string;
let caBundle: string;
let dir: string;
let auditLog: string;
/** Every AdmissionReview request the webhook saw, by path. */
const seen: Array<{ path: string; request: Json }> = [];

const patchOf = (ops: Json[]): Json => ({
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
});

/** The webhook's answer per path. */
function answer(path: string, request: Json): Json {
  const object = request['object'] as Json;
  switch (path) {
    case '/move-namespace':
      return { allowed: true, ...patchOf([{ op: 'replace', path: '/metadata/namespace', value: 'kube-system' }]) };
    case '/rename':
      return {
        allowed: true,
        ...patchOf([{ op: 'replace', path: '/metadata/name', value: `${String(object['metadata']['name'])}-renamed` }]),
      };
    case '/add-label':
      return { allowed: true, ...patchOf([{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }]) };
    case '/annotate':
      return { allowed: true, auditAnnotations: { checked: 'yes' } };
    default:
      return { allowed: false, status: { code: 404, message: `no webhook at ${path}` } };
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'write-path-'));
  writeFileSync(
    join(dir, 'policy.yaml'),
    [
      'apiVersion: audit.k8s.io/v1',
      'kind: Policy',
      'omitStages: [RequestReceived]',
      'rules:',
      '- level: Metadata',
    ].join('\n'),
  );
  webhook = await startAdmissionWebhook(answer, seen);
  webhookUrl = webhook.url;
  caBundle = webhook.caBundle;
});

afterAll(async () => {
  await webhook?.close();
  await etcd?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

let etcd: EtcdProcess | undefined;
const backends: { name: string; options(): Promise<ServerOptions> }[] = [
  { name: 'sqlite', options: async () => ({ storage: 'memory' }) },
  {
    name: 'etcd',
    options: async () => {
      etcd ??= await startEtcd();
      return { storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: `/${randomUUID()}` };
    },
  },
];

const widget = (name: string, labels: Record<string, string>, size = 1): Json => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name, labels },
  spec: { size },
});

/**
 * A webhook configuration calling `path` for widgets labelled `case: <path>` on `operations`,
 * removed when the test ends.
 */
async function configure(kind: 'validating' | 'mutating', path: string, operations: string[]): Promise<void> {
  const plural = `${kind}webhookconfigurations`;
  const name = `${kind}${path.replace('/', '-')}`;
  const hook = {
    name: `${name}.${GROUP}`,
    clientConfig: { url: `${webhookUrl}${path}`, caBundle },
    rules: [{ operations, apiGroups: [GROUP], apiVersions: ['v1'], resources: ['widgets'] }],
    objectSelector: { matchLabels: { case: path.slice(1) } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };
  const r = await call('POST', `${AR}/${plural}`, { body: { metadata: { name }, webhooks: [hook] } });
  expect(r.status, r.text).toBe(201);
  onTestFinished(async () => {
    expect((await call('DELETE', `${AR}/${plural}/${name}`)).status).toBe(200);
  });
}

/** Waits until the webhook at `path` is called: a dry-run create of a widget it matches reaches it. */
async function untilCalled(path: string): Promise<void> {
  await vi.waitFor(async () => {
    const before = seen.length;
    await call('POST', `${WIDGETS}?dryRun=All`, {
      body: widget(`probe-${randomUUID().slice(0, 8)}`, { case: path.slice(1) }),
    });
    expect(seen.slice(before).some((s) => s.path === path)).toBe(true);
  });
}

/** The audit events of one request, found by the Audit-ID it was sent with. */
const auditEvents = (id: string): Json[] =>
  readFileSync(auditLog, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json)
    .filter((e) => e['auditID'] === id);

describe.each(backends)('on $name', ({ name: backend, options }) => {
  beforeAll(async () => {
    auditLog = join(dir, `audit-${backend}.log`);
    server = await startServer({
      ...(await options()),
      auditPolicyFile: join(dir, 'policy.yaml'),
      auditLogPath: auditLog,
    });
    call = apiClient(server) as typeof call;
    await installCrd(call, CRD);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('a write whose Accept nothing satisfies is refused before it is made', () => {
    const accept = 'text/html';

    it('POST: 406, and nothing is created', async () => {
      const r = await call('POST', CONFIGMAPS, { accept, body: { metadata: { name: 'post-406' }, data: { a: '1' } } });
      expect(r.json).toEqual(NOT_ACCEPTABLE);
      expect((await call('GET', `${CONFIGMAPS}/post-406`)).status).toBe(404);
    });

    it('PUT: 406, and the object is unchanged', async () => {
      const created = await call('POST', CONFIGMAPS, { body: { metadata: { name: 'put-406' }, data: { a: '1' } } });
      expect(created.status, created.text).toBe(201);
      const r = await call('PUT', `${CONFIGMAPS}/put-406`, {
        accept,
        body: { metadata: { name: 'put-406' }, data: { a: '2' } },
      });
      expect(r.json).toEqual(NOT_ACCEPTABLE);
      expect((await call('GET', `${CONFIGMAPS}/put-406`)).json).toEqual(created.json);
    });

    it('PATCH: 406, and the object is unchanged', async () => {
      const created = await call('POST', CONFIGMAPS, { body: { metadata: { name: 'patch-406' }, data: { a: '1' } } });
      expect(created.status, created.text).toBe(201);
      const r = await call('PATCH', `${CONFIGMAPS}/patch-406`, {
        accept,
        contentType: MERGE,
        body: { data: { a: '2' } },
      });
      expect(r.json).toEqual(NOT_ACCEPTABLE);
      expect((await call('GET', `${CONFIGMAPS}/patch-406`)).json).toEqual(created.json);
    });

    it('apply: 406, and nothing is created', async () => {
      const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'apply-406' }, data: { a: '1' } };
      const r = await call('PATCH', `${CONFIGMAPS}/apply-406?fieldManager=test`, {
        accept,
        contentType: APPLY,
        body: config,
      });
      expect(r.json).toEqual(NOT_ACCEPTABLE);
      expect((await call('GET', `${CONFIGMAPS}/apply-406`)).status).toBe(404);
    });

    it('DELETE: 406, and the object is still there', async () => {
      const created = await call('POST', CONFIGMAPS, { body: { metadata: { name: 'delete-406' }, data: { a: '1' } } });
      expect(created.status, created.text).toBe(201);
      const r = await call('DELETE', `${CONFIGMAPS}/delete-406`, { accept });
      expect(r.json).toEqual(NOT_ACCEPTABLE);
      expect((await call('GET', `${CONFIGMAPS}/delete-406`)).json).toEqual(created.json);
    });
  });

  describe('a mutating webhook that moves the object to another namespace', () => {
    it('on create: 400, and nothing is stored under either namespace', async () => {
      await configure('mutating', '/move-namespace', ['CREATE']);
      await untilCalled('/move-namespace');
      const r = await call('POST', WIDGETS, { body: widget('moved', { case: 'move-namespace' }) });
      expect(r.json).toEqual(WRONG_NAMESPACE);
      expect((await call('GET', `${WIDGETS}/moved`)).status).toBe(404);
      expect((await call('GET', `/apis/${GROUP}/v1/namespaces/kube-system/widgets/moved`)).status).toBe(404);
      expect((await call('GET', WIDGETS)).json['items'].map((w: Json) => w['metadata']['name'])).not.toContain('moved');
    });

    it('on update and patch: 400, and the object is unchanged', async () => {
      // The create webhook of the test before may still be in force for a moment.
      const created = await vi.waitFor(async () => {
        const r = await call('POST', WIDGETS, { body: widget('stays', { case: 'move-namespace' }) });
        expect(r.status, r.text).toBe(201);
        return r;
      });
      await configure('mutating', '/move-namespace', ['UPDATE']);
      await vi.waitFor(async () => {
        expect(
          (await call('PUT', `${WIDGETS}/stays?dryRun=All`, { body: { ...created.json, spec: { size: 2 } } })).json,
        ).toEqual(WRONG_NAMESPACE);
      });
      const put = await call('PUT', `${WIDGETS}/stays`, { body: { ...created.json, spec: { size: 2 } } });
      expect(put.json).toEqual(WRONG_NAMESPACE);
      const patched = await call('PATCH', `${WIDGETS}/stays`, { contentType: MERGE, body: { spec: { size: 3 } } });
      expect(patched.json).toEqual(WRONG_NAMESPACE);
      const applied = await call('PATCH', `${WIDGETS}/stays?fieldManager=test&force=true`, {
        contentType: APPLY,
        body: widget('stays', { case: 'move-namespace' }, 4),
      });
      expect(applied.json).toEqual(WRONG_NAMESPACE);
      expect((await call('GET', `${WIDGETS}/stays`)).json).toEqual(created.json);
    });

    it('a webhook renaming the object on update: the name is immutable (422)', async () => {
      const created = await call('POST', WIDGETS, { body: widget('named', { case: 'rename' }) });
      expect(created.status, created.text).toBe(201);
      await configure('mutating', '/rename', ['UPDATE']);
      await vi.waitFor(async () => {
        expect(
          (await call('PATCH', `${WIDGETS}/named?dryRun=All`, { contentType: MERGE, body: { spec: { size: 2 } } }))
            .status,
        ).toBe(422);
      });
      const r = await call('PATCH', `${WIDGETS}/named`, { contentType: MERGE, body: { spec: { size: 2 } } });
      expect(r.status, r.text).toBe(422);
      expect(r.json['details']['causes']).toEqual([
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "named-renamed": field is immutable',
          field: 'metadata.name',
        },
      ]);
      expect((await call('GET', `${WIDGETS}/named`)).json).toEqual(created.json);
    });
  });

  describe('managedFields are computed before mutating admission', () => {
    /** The object's managedFields, as [manager, operation, fieldsV1] triples. */
    const owners = (obj: Json): Array<[string, string, Json]> =>
      (obj['metadata']['managedFields'] as Json[]).map((m) => [m['manager'], m['operation'], m['fieldsV1']]);
    const clientFields = {
      'f:metadata': { 'f:labels': { '.': {}, 'f:case': {} } },
      'f:spec': { '.': {}, 'f:size': {} },
    };

    it('on create: the label a webhook adds is not the requesting manager’s', async () => {
      await configure('mutating', '/add-label', ['CREATE']);
      await untilCalled('/add-label');
      const r = await call('POST', `${WIDGETS}?fieldManager=alice`, { body: widget('owned', { case: 'add-label' }) });
      expect(r.status, r.text).toBe(201);
      expect(r.json['metadata']['labels']).toEqual({ case: 'add-label', mutated: 'yes' });
      expect(owners(r.json)).toEqual([['alice', 'Update', clientFields]]);
    });

    it('on apply: the label a webhook adds is not the applier’s', async () => {
      await configure('mutating', '/add-label', ['CREATE']);
      await untilCalled('/add-label');
      const r = await call('PATCH', `${WIDGETS}/applied?fieldManager=bob`, {
        contentType: APPLY,
        body: widget('applied', { case: 'add-label' }),
      });
      expect(r.status, r.text).toBe(201);
      expect(r.json['metadata']['labels']).toEqual({ case: 'add-label', mutated: 'yes' });
      expect(owners(r.json)).toEqual([
        ['bob', 'Apply', { 'f:metadata': { 'f:labels': { 'f:case': {} } }, 'f:spec': { 'f:size': {} } }],
      ]);
    });
  });

  describe('the audit annotations a webhook returns', () => {
    it.each([
      { verb: 'create', method: 'POST', path: WIDGETS, contentType: undefined },
      { verb: 'apply', method: 'PATCH', path: `${WIDGETS}/audited-apply?fieldManager=test`, contentType: APPLY },
    ])('are in the audit event of a $verb', async ({ verb, method, path, contentType }) => {
      await configure('validating', '/annotate', ['CREATE']);
      await untilCalled('/annotate');
      const id = `write-path-${verb}-${randomUUID()}`;
      const r = await call(method, path, {
        headers: { 'Audit-ID': id },
        ...(contentType ? { contentType } : {}),
        body: widget(`audited-${verb}`, { case: 'annotate' }),
      });
      expect(r.status, r.text).toBe(201);
      await vi.waitFor(() => {
        const complete = auditEvents(id).find((e) => e['stage'] === 'ResponseComplete');
        expect(complete?.['annotations']).toMatchObject({ [`validating-annotate.${GROUP}/checked`]: 'yes' });
      });
    });
  });
});
