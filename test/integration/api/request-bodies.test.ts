// Request bodies as kube-apiserver reads them, through the real server: which Content-Type decodes
// (negotiation.NegotiateInputSerializer over mime.ParseMediaType), the first document of a YAML
// stream (sigs.k8s.io/yaml's Unmarshal), metav1.Time fields that do not decode (a 400 from
// transformDecodeError), and a PUT's uid as a storage precondition (a 409 StorageError).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { failureStatus } from '../../helpers/crds.js';

let s: ServerHandle;
let api: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const THINGS = '/apis/bodies.example.com/v1/namespaces/default/things';
const CR_MEDIA_TYPES = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';
const LAYOUT = '"2006-01-02T15:04:05Z07:00"';

interface Meta {
  name: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
}
type Thing = { apiVersion: string; kind: string; metadata: Meta; spec?: Record<string, unknown> };

const thing = (
  name: string,
  metadata: Record<string, unknown> = {},
  spec: Record<string, unknown> = { size: 1 },
): Record<string, unknown> => ({
  apiVersion: 'bodies.example.com/v1',
  kind: 'Thing',
  metadata: { name, ...metadata },
  spec,
});

async function create(name: string): Promise<Thing> {
  const r = await api('POST', THINGS, { body: thing(name) });
  expect(r.status, r.text).toBe(201);
  return r.json as Thing;
}

beforeAll(async () => {
  s = await startServer({ storage: 'memory' });
  api = apiClient(s);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.bodies.example.com' },
    spec: {
      group: 'bodies.example.com',
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        },
      ],
    },
  };
  expect((await api('POST', CRDS, { body: crd })).status).toBe(201);
  for (const deadline = Date.now() + 10_000; (await api('GET', THINGS)).status !== 200; ) {
    if (Date.now() > deadline) throw new Error('things are not served');
    await new Promise((r) => setTimeout(r, 20));
  }
});

afterAll(async () => {
  await s?.close();
});

describe('Content-Type', () => {
  it.each([
    [';;;'],
    ['text/garbage'],
    ['text/yaml'],
    ['application/x-yaml'],
    ['*/*'],
    ['application/json; charset'],
    ['application/json;;'],
    ['/json'],
  ])('%j is a 415 listing the serializers', async (contentType) => {
    const r = await api('POST', THINGS, { raw: JSON.stringify(thing('ct415')), contentType });
    expect(r.json).toEqual(
      failureStatus(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${CR_MEDIA_TYPES}`,
      ),
    );
  });

  it.each([
    ['', 'ct-empty'],
    ['application/json; charset=utf-8', 'ct-charset'],
    ['Application/JSON', 'ct-case'],
    ['application/json;', 'ct-semicolon'],
  ])('%j decodes as JSON', async (contentType, name) => {
    const r = await api('POST', THINGS, { raw: JSON.stringify(thing(name)), contentType });
    expect(r.status, r.text).toBe(201);
  });

  it('a PUT and a DELETE body are read the same way', async () => {
    const current = await create('ct-put');
    const put = await api('PUT', `${THINGS}/ct-put`, {
      raw: JSON.stringify({ ...current, spec: { size: 2 } }),
      contentType: 'text/garbage',
    });
    expect(put.status).toBe(415);
    const del = await api('DELETE', `${THINGS}/ct-put`, { raw: '{}', contentType: ';;;' });
    expect((del.json as { message: string }).message).toBe(
      `the body of the request was in an unknown format - accepted media types include: ${CR_MEDIA_TYPES}`,
    );
  });
});

describe('YAML streams', () => {
  it('only the first document of a multi-document body is decoded', async () => {
    const yaml = [
      'apiVersion: bodies.example.com/v1',
      'kind: Thing',
      'metadata:',
      '  name: first-doc',
      'spec:',
      '  a: 1',
      '---',
      'b: 2',
      '---',
      ': [ not even yaml',
      '',
    ].join('\n');
    const r = await api('POST', THINGS, { raw: yaml, contentType: 'application/yaml' });
    expect(r.status, r.text).toBe(201);
    expect((r.json as Thing).spec).toEqual({ a: 1 });
  });

  it('an explicit start and end marker around the first document changes nothing', async () => {
    const yaml = [
      '---',
      'apiVersion: bodies.example.com/v1',
      'kind: Thing',
      'metadata: {name: marked}',
      '...',
      '---',
      'kind: Other',
    ].join('\n');
    const r = await api('POST', THINGS, { raw: yaml, contentType: 'application/yaml' });
    expect(r.status, r.text).toBe(201);
    expect((r.json as Thing).kind).toBe('Thing');
  });
});

describe('metav1.Time fields that do not decode', () => {
  const decodeError = (err: string): Record<string, unknown> =>
    failureStatus(400, 'BadRequest', `Thing in version "v1" cannot be handled as a Thing: ${err}`);

  it('a PUT with creationTimestamp "yesterday" is kube’s 400', async () => {
    const current = await create('ts-put');
    const r = await api('PUT', `${THINGS}/ts-put`, {
      body: { ...current, metadata: { ...current.metadata, creationTimestamp: 'yesterday' } },
    });
    expect(r.json).toEqual(decodeError(`parsing time "yesterday" as ${LAYOUT}: cannot parse "yesterday" as "2006"`));
    // A well-formed timestamp is taken and ignored, as before: creationTimestamp is the server's.
    const ok = await api('PUT', `${THINGS}/ts-put`, {
      body: { ...current, metadata: { ...current.metadata, creationTimestamp: '2001-02-03T04:05:06Z' } },
    });
    expect(ok.status, ok.text).toBe(200);
    expect((ok.json as Thing).metadata.creationTimestamp).toBe(current.metadata.creationTimestamp);
  });

  it('so is a create, for creationTimestamp, deletionTimestamp and managedFields[].time', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ creationTimestamp: '2024-13-01T00:00:00Z' }, 'parsing time "2024-13-01T00:00:00Z": month out of range'],
      [{ deletionTimestamp: 'soon' }, `parsing time "soon" as ${LAYOUT}: cannot parse "soon" as "2006"`],
      [{ creationTimestamp: 1700000000 }, 'json: cannot unmarshal number into Go value of type string'],
      [
        { managedFields: [{ manager: 'm', operation: 'Update', time: '2024-01-01T00:00:00' }] },
        `parsing time "2024-01-01T00:00:00" as ${LAYOUT}: cannot parse "" as "Z07:00"`,
      ],
    ];
    for (const [metadata, err] of cases) {
      const r = await api('POST', THINGS, { body: thing('ts-create', metadata) });
      expect(r.json).toEqual(decodeError(err));
    }
  });

  it('built-in kinds answer in their own kind', async () => {
    const r = await api('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ts-ns', creationTimestamp: 'x' } },
    });
    expect(r.json).toEqual(
      failureStatus(
        400,
        'BadRequest',
        `Namespace in version "v1" cannot be handled as a Namespace: parsing time "x" as ${LAYOUT}: cannot parse "x" as "2006"`,
      ),
    );
  });
});

describe('a PUT whose metadata.uid is not the stored one', () => {
  const preconditionFailed = (name: string, sent: string, stored: string): Record<string, unknown> =>
    failureStatus(
      409,
      'Conflict',
      `Operation cannot be fulfilled on things.bodies.example.com "${name}": StorageError: invalid object, Code: 4, Key: /registry/bodies.example.com/things/default/${name}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${sent}, UID in object meta: ${stored}`,
      { name, group: 'bodies.example.com', kind: 'things' },
    );

  it('fails its precondition: a 409 Conflict, before the resourceVersion is looked at', async () => {
    const current = await create('uid-put');
    const r = await api('PUT', `${THINGS}/uid-put`, {
      body: { ...current, metadata: { ...current.metadata, uid: 'not-the-uid' } },
    });
    expect(r.json).toEqual(preconditionFailed('uid-put', 'not-the-uid', current.metadata.uid));
    const { resourceVersion: _rv, ...withoutRv } = current.metadata;
    const noRv = await api('PUT', `${THINGS}/uid-put`, {
      body: { ...current, metadata: { ...withoutRv, uid: 'not-the-uid' } },
    });
    expect(noRv.json).toEqual(preconditionFailed('uid-put', 'not-the-uid', current.metadata.uid));
  });

  it('the stored uid, or none, passes', async () => {
    const current = await create('uid-ok');
    const same = await api('PUT', `${THINGS}/uid-ok`, { body: { ...current, spec: { size: 2 } } });
    expect(same.status, same.text).toBe(200);
    const { uid: _uid, ...withoutUid } = (same.json as Thing).metadata;
    const none = await api('PUT', `${THINGS}/uid-ok`, {
      body: { ...current, metadata: withoutUid, spec: { size: 3 } },
    });
    expect(none.status, none.text).toBe(200);
    expect((none.json as Thing).metadata.uid).toBe(current.metadata.uid);
  });

  it('a patch that changes it is still the immutable-field 422 (a patch carries no precondition)', async () => {
    await create('uid-patch');
    const r = await api('PATCH', `${THINGS}/uid-patch`, {
      body: { metadata: { uid: 'other' } },
      contentType: 'application/merge-patch+json',
    });
    expect(r.status).toBe(422);
    expect((r.json as { message: string }).message).toContain(
      'metadata.uid: Invalid value: "other": field is immutable',
    );
  });
});
