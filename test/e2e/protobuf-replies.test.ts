// Protobuf replies against the real binary: kubectl 1.33's typed clients (create namespace, create
// configmap, describe with its events list) ask for `application/vnd.kubernetes.protobuf,
// application/json` and must get, and understand, kube's protobuf; requests with that Accept header
// from here check what went over the wire (Content-Type, the `k8s\0` prefix, watch frames) and decode
// it with the server's own decoder, against the JSON answer for the same object.
//
// kubectl comes from test/helpers/kubectl.ts findKubectl: a missing kubectl 1.33 FAILS the first
// test (saying where it looked), and the others are skipped.
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, run, startServerProcess } from '../helpers/server-process.js';
import { findKubectl, kubectlRunner } from '../helpers/kubectl.js';
import { decodeProtobufObject, decodeProtobufWatchEvent } from '../../server/codecs/protobuf.js';

const KUBECTL = findKubectl('1.33');
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
/** What kubectl 1.32+ typed clients send (shared/research/kubectl-wire/REPORT.md section 1). */
const TYPED_ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';
const MAGIC = Buffer.from('k8s\0', 'latin1');

interface RawResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

describe('kubectl 1.33 (protobuf replies)', () => {
  it('the kubectl 1.33 binary is there', async () => {
    if (!KUBECTL.binary) expect.fail(KUBECTL.problem);
    const r = await run(KUBECTL.binary!, ['version', '--client', '-o', 'json'], { timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe.skipIf(!KUBECTL.binary)('protobuf replies to typed clients', () => {
  let server: ServerProcess;
  const { kubectl, ok } = kubectlRunner(KUBECTL.binary ?? '', () => server.kubeconfigPath);

  /** One request, the body kept as bytes (the shared helper reads text). */
  const raw = (path: string, accept: string, method = 'GET', body?: string): Promise<RawResponse> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept, authorization: `Bearer ${server.token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const req = httpsRequest(
        server.url + path,
        { method, ca: server.ca, headers, agent: false, timeout: 15_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${path} timed out`)));
      req.on('error', reject);
      req.end(body);
    });

  /** The same path asked for in protobuf and in JSON: the protobuf body, checked and decoded, and the JSON. */
  async function both(
    path: string,
  ): Promise<{ proto: Record<string, unknown>; json: Record<string, unknown>; status: number }> {
    const p = await raw(path, TYPED_ACCEPT);
    expect(p.contentType).toBe(PROTOBUF);
    expect(p.body.subarray(0, 4)).toEqual(MAGIC);
    const j = await raw(path, 'application/json');
    expect(j.contentType).toBe('application/json');
    expect(j.status).toBe(p.status);
    return {
      proto: decodeProtobufObject(p.body),
      json: JSON.parse(j.body.toString('utf8')) as Record<string, unknown>,
      status: p.status,
    };
  }

  beforeAll(async () => {
    server = await startServerProcess();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('create namespace: kubectl reads the protobuf Namespace, and the AlreadyExists Status', async () => {
    expect(await ok(['create', 'namespace', 'pb'])).toBe('namespace/pb created\n');
    const again = await kubectl(['create', 'namespace', 'pb']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('Error from server (AlreadyExists): namespaces "pb" already exists');
    const { proto, json } = await both('/api/v1/namespaces/pb');
    expect(proto).toEqual(json);
    expect(proto).toMatchObject({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'pb' },
      status: { phase: 'Active' },
    });
  });

  it('create configmap -o json prints the object kubectl decoded from protobuf; get -o json agrees', async () => {
    const created = JSON.parse(
      await ok(['create', 'configmap', 'cm', '-n', 'pb', '--from-literal=a=b', '--from-literal=c=d', '-o', 'json']),
    ) as {
      metadata: { name: string; uid: string; resourceVersion: string; creationTimestamp: string };
      data: Record<string, string>;
    };
    expect(created.data).toEqual({ a: 'b', c: 'd' });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // `get -o json` reads JSON (kubectl's unstructured path): the same object.
    const got = JSON.parse(await ok(['get', 'configmap', 'cm', '-n', 'pb', '-o', 'json'])) as typeof created;
    expect(got.metadata).toMatchObject({
      uid: created.metadata.uid,
      resourceVersion: created.metadata.resourceVersion,
      creationTimestamp: created.metadata.creationTimestamp,
    });
    expect(got.data).toEqual(created.data);

    const { proto, json } = await both('/api/v1/namespaces/pb/configmaps/cm');
    expect(proto).toEqual(json);
  });

  it('describe: the typed get and the events list come back in protobuf and print', async () => {
    const cm = JSON.parse(await ok(['get', 'configmap', 'cm', '-n', 'pb', '-o', 'json'])) as {
      metadata: { uid: string };
    };
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'cm.1', namespace: 'pb' },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'pb', uid: cm.metadata.uid },
      reason: 'Checked',
      message: 'looked at by the protobuf test',
      type: 'Normal',
      source: { component: 'protobuf-e2e' },
      firstTimestamp: '2024-05-01T10:00:00Z',
      lastTimestamp: '2024-05-01T10:00:00Z',
      count: 1,
    };
    await ok(['create', '-f', '-'], JSON.stringify(event));
    const described = await ok(['describe', 'configmap', 'cm', '-n', 'pb']);
    expect(described).toMatch(/^Name:\s+cm$/m);
    expect(described).toMatch(/^a:\n----\nb$/m);
    expect(described).toMatch(/^\s+Normal\s+Checked\s+.*protobuf-e2e\s+looked at by the protobuf test$/m);

    const selector = encodeURIComponent(
      `involvedObject.name=cm,involvedObject.namespace=pb,involvedObject.kind=ConfigMap,involvedObject.uid=${cm.metadata.uid}`,
    );
    const { proto, json } = await both(`/api/v1/namespaces/pb/events?fieldSelector=${selector}`);
    expect(proto['kind']).toBe('EventList');
    // The decoder writes the two reporting fields even when empty, as kube's JSON does (no omitempty
    // in core/v1 Event); this server's JSON leaves them out when empty.
    const items = (json['items'] as Record<string, unknown>[]).map(({ apiVersion: _a, kind: _k, ...rest }) => ({
      reportingComponent: '',
      reportingInstance: '',
      ...rest,
    }));
    expect(items).toHaveLength(1);
    expect(proto).toEqual({ ...json, items });
  });

  it('kubectl -v=8 shows the server answering kubectl itself in protobuf', async () => {
    const r = await kubectl(['describe', 'configmap', 'cm', '-n', 'pb', '-v=8']);
    expect(r.code, r.stderr).toBe(0);
    // client-go logs each request's headers, then its response's, at -v=8. describe reads the
    // object twice: once as JSON (the resource builder), once through the typed client; then its events.
    const answered = (path: RegExp): string | undefined =>
      new RegExp(
        `"Request" verb="GET" url="https://[^"]+${path.source}" headers=<\n\tAccept: application/vnd\\.kubernetes\\.protobuf,application/json\n[^>]*>[\\s\\S]*?"Response" status="200 OK" headers=<([^>]*)>`,
      ).exec(r.stderr)?.[1];
    expect(answered(/\/api\/v1\/namespaces\/pb\/configmaps\/cm/)).toContain(`Content-Type: ${PROTOBUF}\n`);
    expect(answered(/\/api\/v1\/namespaces\/pb\/events\?[^"]*/)).toContain(`Content-Type: ${PROTOBUF}\n`);
  });

  it('lists, errors, and what stays JSON', async () => {
    const list = await both('/api/v1/namespaces/pb/configmaps');
    expect(list.proto['kind']).toBe('ConfigMapList');
    const items = (list.json['items'] as Record<string, unknown>[]).map(
      ({ apiVersion: _a, kind: _k, ...rest }) => rest,
    );
    expect(list.proto).toEqual({ ...list.json, items });

    const missing = await both('/api/v1/namespaces/pb/configmaps/nope');
    expect(missing.status).toBe(404);
    expect(missing.proto).toEqual(missing.json);
    expect(missing.proto).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
    });

    // A 422 with causes, through a JSON request body.
    const bad = await raw(
      '/api/v1/namespaces/pb/configmaps',
      TYPED_ACCEPT,
      'POST',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, data: { '..': 'x' } }),
    );
    expect([bad.status, bad.contentType]).toEqual([422, PROTOBUF]);
    expect(decodeProtobufObject(bad.body)).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'data[..]' }] },
    });

    // kubectl get's Table stays JSON.
    const table = await raw(
      '/api/v1/namespaces/pb/configmaps',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    );
    expect(table.contentType).toBe('application/json');
  });

  it('custom resources have no protobuf: JSON when JSON is also accepted, else 406 (a protobuf Status); their CRD has', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.pb.example.com' },
      spec: {
        group: 'pb.example.com',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    await ok(['apply', '-f', '-'], JSON.stringify(crd));
    const path = '/apis/pb.example.com/v1/namespaces/pb/gadgets';
    let created: RawResponse | undefined;
    for (let i = 0; i < 100 && created?.status !== 201; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      created = await raw(
        path,
        TYPED_ACCEPT,
        'POST',
        JSON.stringify({ apiVersion: 'pb.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { n: 1 } }),
      );
    }
    expect([created?.status, created?.contentType]).toEqual([201, 'application/json']);
    const got = await raw(`${path}/g`, TYPED_ACCEPT);
    expect([got.status, got.contentType]).toEqual([200, 'application/json']);
    expect(JSON.parse(got.body.toString('utf8'))).toMatchObject({ kind: 'Gadget', spec: { n: 1 } });
    const only = await raw(`${path}/g`, PROTOBUF);
    expect([only.status, only.contentType]).toEqual([406, PROTOBUF]);
    expect(decodeProtobufObject(only.body)).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
    // Their metadata-only view is protobuf, as kube's.
    const meta = await raw(`${path}/g`, `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json`);
    expect(meta.contentType).toBe(PROTOBUF);
    expect(decodeProtobufObject(meta.body)).toMatchObject({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'g', namespace: 'pb' },
    });

    // The CRD itself is a built-in kind: protobuf, schema and all.
    const one = await both('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.pb.example.com');
    expect(one.proto).toEqual(one.json);
    const list = await both('/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    const items = (list.json['items'] as Record<string, unknown>[]).map(
      ({ apiVersion: _a, kind: _k, ...rest }) => rest,
    );
    expect(list.proto).toEqual({ ...list.json, items });
  });

  it('a watch in protobuf: length-prefixed WatchEvent frames, objects as whole protobuf bodies', async () => {
    const w = await raw('/api/v1/namespaces/pb/configmaps?watch=true&timeoutSeconds=1', TYPED_ACCEPT);
    expect(w.contentType).toBe(`${PROTOBUF};stream=watch`);
    const events: { type: string; object: Record<string, unknown> }[] = [];
    for (let at = 0; at < w.body.length; ) {
      const length = w.body.readUInt32BE(at);
      events.push(decodeProtobufWatchEvent(w.body.subarray(at + 4, at + 4 + length)));
      at += 4 + length;
    }
    const json = JSON.parse(
      (await raw('/api/v1/namespaces/pb/configmaps/cm', 'application/json')).body.toString('utf8'),
    ) as Record<string, unknown>;
    expect(events).toContainEqual({ type: 'ADDED', object: json });
  });
});
