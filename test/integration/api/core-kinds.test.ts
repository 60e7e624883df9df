// ConfigMap, Secret, ServiceAccount (core/v1) and Lease (coordination.k8s.io/v1) over HTTPS against
// an in-process server: every verb, discovery, tables, kube's 422s, Secret's stringData, and a
// protobuf create as kubectl 1.32+ sends one (built from the same proto definitions the server
// decodes with, so a wrong field number is caught by the kubectl e2e tests, not here).
import { request as httpsRequest } from 'node:https';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../../server/index.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { KUBE_PROTOS } from '../../../apimachinery/apis/kube-protos.js';
import { decodeProtobufObject } from '../../../server/codecs/protobuf.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const AGG_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const NS = '/api/v1/namespaces/default';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const MERGE = 'application/merge-patch+json';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

let server: ServerHandle;
let call: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: Json }>;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server) as typeof call;
});
afterAll(async () => {
  await server?.close();
});

const invalid = (
  kind: string,
  name: string,
  group: string,
  causes: { reason: string; message: string; field: string }[],
  message: string,
): Json => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason: 'Invalid',
  details: { name, ...(group ? { group } : {}), kind, causes },
  code: 422,
});

interface KindCase {
  name: string;
  path: string;
  apiVersion: string;
  kind: string;
  body: Record<string, unknown>;
  /** A merge patch and what the patched object then holds. */
  patch: Record<string, unknown>;
  patched: (obj: Json) => unknown;
  want: unknown;
  columns: string[];
  cells: unknown[];
}

const CASES: KindCase[] = [
  {
    name: 'configmaps',
    path: `${NS}/configmaps`,
    apiVersion: 'v1',
    kind: 'ConfigMap',
    body: { data: { a: 'b' }, binaryData: { bin: b64('\u0000\u0001') } },
    patch: { data: { c: 'd' } },
    patched: (o) => o.data,
    want: { a: 'b', c: 'd' },
    columns: ['Name', 'Data', 'Age'],
    cells: [2],
  },
  {
    name: 'secrets',
    path: `${NS}/secrets`,
    apiVersion: 'v1',
    kind: 'Secret',
    body: { data: { p: b64('q') } },
    patch: { stringData: { r: 's' } },
    patched: (o) => o.data,
    want: { p: b64('q'), r: b64('s') },
    columns: ['Name', 'Type', 'Data', 'Age'],
    cells: ['Opaque', 1],
  },
  {
    name: 'serviceaccounts',
    path: `${NS}/serviceaccounts`,
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    body: { secrets: [{ name: 'tok' }], imagePullSecrets: [{ name: 'pull' }] },
    patch: { automountServiceAccountToken: false },
    patched: (o) => o.automountServiceAccountToken,
    want: false,
    columns: ['Name', 'Secrets', 'Age'],
    cells: [1],
  },
  {
    name: 'leases',
    path: LEASES,
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    body: { spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2024-05-01T10:00:00.123456Z' } },
    patch: { spec: { leaseTransitions: 2 } },
    patched: (o) => o.spec,
    want: {
      holderIdentity: 'node-1',
      leaseDurationSeconds: 40,
      renewTime: '2024-05-01T10:00:00.123456Z',
      leaseTransitions: 2,
    },
    columns: ['Name', 'Holder', 'Age'],
    cells: ['node-1'],
  },
];

describe.each(CASES)('$name', (c) => {
  const object = (name: string): Json => ({ apiVersion: c.apiVersion, kind: c.kind, metadata: { name }, ...c.body });

  it('create, get, list, update, patch and delete, each answered as kube does', async () => {
    const created = await call('POST', c.path, { body: object('one') });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({
      apiVersion: c.apiVersion,
      kind: c.kind,
      metadata: { name: 'one', namespace: 'default' },
    });
    // Built-in kinds without a spec/status split keep no generation.
    expect(created.json.metadata.generation).toBeUndefined();

    const got = await call('GET', `${c.path}/one`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(created.json);

    const list = await call('GET', c.path);
    expect(list.status).toBe(200);
    expect(list.json.kind).toBe(`${c.kind}List`);
    expect(list.json.items.map((i: Json) => i.metadata.name)).toContain('one');

    const put = await call('PUT', `${c.path}/one`, {
      body: { ...got.json, metadata: { ...got.json.metadata, labels: { put: 'yes' } } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.metadata.labels).toEqual({ put: 'yes' });
    expect(Number(put.json.metadata.resourceVersion)).toBeGreaterThan(Number(got.json.metadata.resourceVersion));

    const patched = await call('PATCH', `${c.path}/one`, { body: c.patch, contentType: MERGE });
    expect(patched.status, patched.text).toBe(200);
    expect(c.patched(patched.json)).toEqual(c.want);

    // kubectl's default patch type for built-in kinds.
    const strategic = await call('PATCH', `${c.path}/one`, {
      body: { metadata: { labels: { smp: 'yes' } } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(strategic.status, strategic.text).toBe(200);
    expect(strategic.json.metadata.labels).toEqual({ put: 'yes', smp: 'yes' });

    const deleted = await call('DELETE', `${c.path}/one`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: 'one',
        ...(c.apiVersion === 'v1' ? {} : { group: 'coordination.k8s.io' }),
        kind: c.name,
        uid: created.json.metadata.uid,
      },
    });
    expect((await call('GET', `${c.path}/one`)).status).toBe(404);
  });

  it('prints the columns kubectl get shows', async () => {
    await call('POST', c.path, { body: object('printed') });
    const table = await call('GET', `${c.path}?fieldSelector=metadata.name%3Dprinted`, { accept: TABLE });
    expect(table.status, table.text).toBe(200);
    expect(table.json.kind).toBe('Table');
    expect(table.json.columnDefinitions.map((d: Json) => d.name)).toEqual(c.columns);
    expect(table.json.columnDefinitions.map((d: Json) => d.type)).toEqual(c.columns.map(() => 'string'));
    expect(table.json.rows).toHaveLength(1);
    const cells = table.json.rows[0].cells;
    expect(cells.slice(0, -1)).toEqual(['printed', ...c.cells]);
    expect(cells.at(-1)).toMatch(/^\d+s$/);
  });
});

describe('discovery', () => {
  const resource = (items: Json[], group: string, name: string): Json =>
    items.find((i) => (i.metadata.name ?? '') === group).versions[0].resources.find((r: Json) => r.resource === name);

  it('lists the kinds in aggregated discovery with short names and verbs, Lease under coordination.k8s.io', async () => {
    const core = await call('GET', '/api', { accept: AGG_V2 });
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    expect(resource(core.json.items, '', 'configmaps')).toEqual({
      resource: 'configmaps',
      responseKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      scope: 'Namespaced',
      singularResource: 'configmap',
      verbs,
      shortNames: ['cm'],
    });
    expect(resource(core.json.items, '', 'secrets')).toMatchObject({
      singularResource: 'secret',
      verbs,
      scope: 'Namespaced',
    });
    expect(resource(core.json.items, '', 'secrets').shortNames).toBeUndefined();
    expect(resource(core.json.items, '', 'serviceaccounts')).toMatchObject({
      singularResource: 'serviceaccount',
      verbs,
      shortNames: ['sa'],
    });
    const apis = await call('GET', '/apis', { accept: AGG_V2 });
    expect(resource(apis.json.items, 'coordination.k8s.io', 'leases')).toEqual({
      resource: 'leases',
      responseKind: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' },
      scope: 'Namespaced',
      singularResource: 'lease',
      verbs,
    });
  });

  it("lists them in legacy discovery with kube's storage version hashes", async () => {
    const v1 = await call('GET', '/api/v1');
    const hash = (name: string): string => v1.json.resources.find((r: Json) => r.name === name)?.storageVersionHash;
    // The hashes a kube-apiserver publishes (kubectl api-resources -o json of a real cluster).
    expect([hash('configmaps'), hash('secrets'), hash('serviceaccounts')]).toEqual([
      'qFsyl6wFWjQ=',
      'S6u1pOWzb84=',
      'pbx9ZvyFpBE=',
    ]);
    const gv = { groupVersion: 'coordination.k8s.io/v1', version: 'v1' };
    expect((await call('GET', '/apis')).json.groups).toContainEqual({
      name: 'coordination.k8s.io',
      versions: [gv],
      preferredVersion: gv,
    });
    const leases = await call('GET', '/apis/coordination.k8s.io/v1');
    expect(leases.json.resources).toEqual([
      {
        name: 'leases',
        singularName: 'lease',
        namespaced: true,
        kind: 'Lease',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        storageVersionHash: 'gqkMMb/YqFM=',
      },
    ]);
  });

  it("publishes an OpenAPI v3 document for coordination.k8s.io/v1 under kube's definition names", async () => {
    const index = await call('GET', '/openapi/v3');
    const url = index.json.paths['apis/coordination.k8s.io/v1'].serverRelativeURL as string;
    const doc = await call('GET', url);
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.json.components.schemas)).toEqual(
      expect.arrayContaining(['io.k8s.api.coordination.v1.Lease', 'io.k8s.api.coordination.v1.LeaseList']),
    );
    expect(doc.json.components.schemas['io.k8s.api.coordination.v1.Lease']['x-kubernetes-group-version-kind']).toEqual([
      { group: 'coordination.k8s.io', kind: 'Lease', version: 'v1' },
    ]);
  });
});

describe('Secret', () => {
  it('folds stringData into data, stores and returns no stringData, and defaults the type to Opaque', async () => {
    const r = await call('POST', `${NS}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'sd' },
        data: { a: b64('old') },
        stringData: { a: 'new', b: 'two' },
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.json.data).toEqual({ a: b64('new'), b: b64('two') });
    expect(r.json.type).toBe('Opaque');
    expect(r.json.stringData).toBeUndefined();
    const got = await call('GET', `${NS}/secrets/sd`);
    expect(got.json.stringData).toBeUndefined();
    expect(got.json.data).toEqual({ a: b64('new'), b: b64('two') });
  });

  it("refuses data that is not base64 as kube's decoder does (400)", async () => {
    const r = await call('POST', `${NS}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' }, data: { a: 'not base64!' } },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
    );
  });

  it('keeps its type: 422 on a change', async () => {
    await call('POST', `${NS}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'typed' } } });
    const r = await call('PATCH', `${NS}/secrets/typed`, {
      body: { type: 'kubernetes.io/basic-auth', data: { username: '' } },
      contentType: MERGE,
    });
    expect(r.json).toEqual(
      invalid(
        'Secret',
        'typed',
        '',
        [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "kubernetes.io/basic-auth": field is immutable',
            field: 'type',
          },
        ],
        'Secret "typed" is invalid: type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      ),
    );
  });

  it('selects by type', async () => {
    await call('POST', `${NS}/secrets`, {
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'tls' },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': '', 'tls.key': '' },
      },
    });
    const r = await call('GET', `${NS}/secrets?fieldSelector=type%3Dkubernetes.io%2Ftls`);
    expect(r.json.items.map((i: Json) => i.metadata.name)).toEqual(['tls']);
  });
});

describe('ConfigMap', () => {
  it('over 1 MiB: 422 naming the whole object', async () => {
    const r = await call('POST', `${NS}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'big' },
        data: { a: 'x'.repeat(1024 * 1024 + 1) },
      },
    });
    expect(r.json).toEqual(
      invalid(
        'ConfigMap',
        'big',
        '',
        [{ reason: 'FieldValueTooLong', message: 'Too long: must have at most 1048576 bytes', field: '[]' }],
        'ConfigMap "big" is invalid: []: Too long: must have at most 1048576 bytes',
      ),
    );
  });

  it('immutable: data cannot change (422), labels can', async () => {
    const created = await call('POST', `${NS}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'frozen' }, immutable: true, data: { a: 'b' } },
    });
    expect(created.status).toBe(201);
    const r = await call('PUT', `${NS}/configmaps/frozen`, { body: { ...created.json, data: { a: 'c' } } });
    expect(r.json).toEqual(
      invalid(
        'ConfigMap',
        'frozen',
        '',
        [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: field is immutable when `immutable` is set',
            field: 'data',
          },
        ],
        'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      ),
    );
    const labelled = await call('PATCH', `${NS}/configmaps/frozen`, {
      body: { metadata: { labels: { ok: 'yes' } } },
      contentType: MERGE,
    });
    expect(labelled.status).toBe(200);
  });

  it('keys must be valid config map keys', async () => {
    const r = await call('POST', `${NS}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keys' }, data: { '..': 'x' } },
    });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(`ConfigMap "keys" is invalid: data[..]: Invalid value: "..": must not be '..'`);
  });
});

describe('Lease', () => {
  it("a negative duration: 422 with kube's text", async () => {
    const r = await call('POST', LEASES, {
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'neg' },
        spec: { leaseDurationSeconds: -1 },
      },
    });
    expect(r.json).toEqual(
      invalid(
        'Lease',
        'neg',
        'coordination.k8s.io',
        [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: -1: must be greater than 0',
            field: 'spec.leaseDurationSeconds',
          },
        ],
        'Lease.coordination.k8s.io "neg" is invalid: spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0',
      ),
    );
  });

  it('keeps MicroTimes to the microsecond and refuses other time formats (400)', async () => {
    const ok = await call('POST', LEASES, {
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'micro' },
        spec: { acquireTime: '2024-05-01T12:00:00.654321+02:00' },
      },
    });
    expect(ok.json.spec.acquireTime).toBe('2024-05-01T10:00:00.654321Z');
    const bad = await call('POST', LEASES, {
      body: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'sec' },
        spec: { renewTime: '2024-05-01T10:00:00Z' },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe(
      'Lease in version "v1" cannot be handled as a Lease: parsing time "2024-05-01T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
  });
});

// ---- protobuf ---------------------------------------------------------------------------------

const root = new protobuf.Root();
for (const text of Object.values(KUBE_PROTOS)) protobuf.parse(text, root, { keepCase: true });
root.resolveAll();

/** `k8s\0` + runtime.Unknown{typeMeta, raw}, as client-go's protobuf serializer writes a body. */
function protobufBody(apiVersion: string, kind: string, typeName: string, object: Record<string, unknown>): Buffer {
  const type = root.lookupType(typeName);
  const raw = type.encode(type.fromObject(object)).finish();
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  return Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw })).finish(),
  ]);
}

function postBinary(
  path: string,
  body: Buffer,
): Promise<{ status: number; json: Json; contentType: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      server.url + path,
      {
        method: 'POST',
        ca: server.caCert,
        agent: false,
        headers: {
          authorization: `Bearer ${server.token}`,
          'content-type': 'application/vnd.kubernetes.protobuf',
          accept: 'application/vnd.kubernetes.protobuf,application/json',
          'content-length': String(body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          // kube answers a client that prefers protobuf in protobuf; the server's own decoder reads it back.
          const raw = Buffer.concat(chunks);
          const protobufReply = res.headers['content-type'] === 'application/vnd.kubernetes.protobuf';
          resolve({
            status: res.statusCode ?? 0,
            json: protobufReply ? decodeProtobufObject(raw) : JSON.parse(raw.toString('utf8')),
            contentType: res.headers['content-type'],
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('protobuf request bodies (kubectl 1.32+)', () => {
  it('creates a ConfigMap from a protobuf body, binary data as base64, answered in protobuf', async () => {
    const body = protobufBody('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', {
      metadata: { name: 'proto-cm' },
      data: { a: 'b', empty: '' },
      binaryData: { bin: Buffer.from([0, 255]) },
    });
    const r = await postBinary(`${NS}/configmaps?fieldManager=kubectl-create`, body);
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.contentType).toBe('application/vnd.kubernetes.protobuf');
    expect(r.json).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'proto-cm', namespace: 'default' },
      data: { a: 'b', empty: '' },
      binaryData: { bin: 'AP8=' },
    });
    expect(r.json.immutable).toBeUndefined();
  });

  it('creates a Secret (bytes data, stringData folded in, immutable false kept) and a Lease with MicroTimes', async () => {
    const secret = await postBinary(
      `${NS}/secrets`,
      protobufBody('v1', 'Secret', 'k8s.io.api.core.v1.Secret', {
        metadata: { name: 'proto-s' },
        data: { p: Buffer.from('q') },
        stringData: { r: 's' },
        immutable: false,
      }),
    );
    expect(secret.status, JSON.stringify(secret.json)).toBe(201);
    expect(secret.json).toMatchObject({ type: 'Opaque', data: { p: b64('q'), r: b64('s') }, immutable: false });
    expect(secret.json.stringData).toBeUndefined();

    const sa = await postBinary(
      `${NS}/serviceaccounts`,
      protobufBody('v1', 'ServiceAccount', 'k8s.io.api.core.v1.ServiceAccount', {
        metadata: { name: 'proto-sa' },
        imagePullSecrets: [{ name: 'pull' }],
        automountServiceAccountToken: false,
      }),
    );
    expect(sa.status, JSON.stringify(sa.json)).toBe(201);
    expect(sa.json).toMatchObject({ imagePullSecrets: [{ name: 'pull' }], automountServiceAccountToken: false });

    const lease = await postBinary(
      LEASES,
      protobufBody('coordination.k8s.io/v1', 'Lease', 'k8s.io.api.coordination.v1.Lease', {
        metadata: { name: 'proto-l' },
        spec: {
          holderIdentity: '',
          leaseDurationSeconds: 15,
          renewTime: { seconds: 1714557600, nanos: 123456000 },
          leaseTransitions: 0,
        },
      }),
    );
    expect(lease.status, JSON.stringify(lease.json)).toBe(201);
    // Pointers: zero values sent are kept (holderIdentity "", leaseTransitions 0).
    expect(lease.json.spec).toEqual({
      holderIdentity: '',
      leaseDurationSeconds: 15,
      renewTime: '2024-05-01T10:00:00.123456Z',
      leaseTransitions: 0,
    });
  });
});
