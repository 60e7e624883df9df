// A CRD's schema at work over HTTP: fieldValidation on create, update and patch (duplicate keys
// too), defaults applied on read so that a default added later shows on old objects, and schema
// checks when the CRD is written.
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type ApiResponse, apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const BASE = '/apis/schema.example.com/v1/namespaces/default/gadgets';

const crd = (specProps: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.schema.example.com' },
  spec: {
    group: 'schema.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: specProps } } },
        },
      },
    ],
  },
});
const gadget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'schema.example.com/v1',
  kind: 'Gadget',
  metadata: { name },
  spec,
});
const message = (r: ApiResponse): string => (r.json as { message: string }).message;
const specOf = (r: ApiResponse): unknown => (r.json as { spec: unknown }).spec;

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  expect((await call('POST', CRDS, { body: crd({ size: { type: 'integer', maximum: 9 } }) })).status).toBe(201);
  await eventually('the CRD served', async () => ((await call('GET', BASE)).status === 200 ? true : undefined));
});
afterAll(async () => {
  await server?.close();
});

describe('fieldValidation', () => {
  it('Strict refuses unknown and duplicate fields on create with kube’s 400', async () => {
    const r = await call('POST', `${BASE}?fieldValidation=Strict`, {
      raw: '{"apiVersion":"schema.example.com/v1","kind":"Gadget","metadata":{"name":"s"},"spec":{"size":1,"size":2,"sise":3}}',
    });
    expect(r.status).toBe(400);
    expect(message(r)).toBe(
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: duplicate field "spec.size", unknown field "spec.sise"',
    );
    expect((await call('GET', `${BASE}/s`)).status).toBe(404);
  });

  it('Warn (the default) stores without the unknown field and says so in Warning headers', async () => {
    const r = await call('POST', BASE, { body: gadget('w', { size: 1, sise: 3 }) });
    expect(r.status).toBe(201);
    expect(r.headers['warning']).toBe('299 - "unknown field \\"spec.sise\\""');
    expect(specOf(r)).toEqual({ size: 1 });
  });

  it('Ignore drops it silently; an unsupported value is a 422 on the options', async () => {
    const r = await call('POST', `${BASE}?fieldValidation=Ignore`, { body: gadget('i', { size: 1, sise: 3 }) });
    expect([r.status, r.headers['warning'], specOf(r)]).toEqual([201, undefined, { size: 1 }]);
    const bad = await call('POST', `${BASE}?fieldValidation=Loud`, { body: gadget('x', {}) });
    expect([bad.status, message(bad)]).toEqual([
      422,
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Warn", "Strict"',
    ]);
  });

  it('Strict on a merge patch is a 422 on the patch, as kube words it', async () => {
    const r = await call('PATCH', `${BASE}/w?fieldValidation=Strict`, {
      body: { spec: { sise: 4 } },
      contentType: 'application/merge-patch+json',
    });
    expect(r.status).toBe(422);
    expect(message(r)).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": strict decoding error: unknown field "spec.sise"$/,
    );
    const unchanged = await call('GET', `${BASE}/w`);
    expect(specOf(unchanged)).toEqual({ size: 1 });
  });

  it('Strict on an update refuses what the schema does not know', async () => {
    const current = (await call('GET', `${BASE}/w`)).json as { metadata: Record<string, unknown> };
    const r = await call('PUT', `${BASE}/w?fieldValidation=Strict`, {
      body: { ...gadget('w', { size: 2, extra: true }), metadata: current.metadata },
    });
    expect([r.status, message(r)]).toEqual([
      400,
      'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.extra"',
    ]);
  });
});

describe('defaults', () => {
  it('appear on objects stored before the default was added to the CRD', async () => {
    expect((await call('POST', BASE, { body: gadget('old', { size: 1 }) })).status).toBe(201);
    const current = (await call('GET', `${CRDS}/gadgets.schema.example.com`)).json as Record<string, unknown>;
    const updated = crd({ size: { type: 'integer', maximum: 9 }, color: { type: 'string', default: 'blue' } });
    const put = await call('PUT', `${CRDS}/gadgets.schema.example.com`, {
      body: { ...updated, metadata: (current as { metadata: unknown }).metadata },
    });
    expect(put.status).toBe(200);
    await eventually('the new default', async () => {
      const got = await call('GET', `${BASE}/old`);
      return isDeepStrictEqual(specOf(got), { color: 'blue', size: 1 }) ? true : undefined;
    });
    const listed = (await call('GET', BASE)).json as { items: { metadata: { name: string }; spec: unknown }[] };
    expect(listed.items.find((i) => i.metadata.name === 'old')?.spec).toEqual({ color: 'blue', size: 1 });
  });
});

describe('schemas at CRD write', () => {
  it('refuses a non-structural schema and an invalid default with kube’s paths and messages', async () => {
    const untyped = crd({ size: { maximum: 9 } });
    untyped.metadata.name = 'gadgets.schema.example.com';
    const r1 = await call('POST', CRDS, {
      body: {
        ...untyped,
        metadata: { name: 'widgets.other.example.com' },
        spec: {
          ...untyped.spec,
          group: 'other.example.com',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        },
      },
    });
    expect(r1.status).toBe(422);
    expect(message(r1)).toContain(
      'spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields',
    );

    const badDefault = crd({ size: { type: 'integer', maximum: 9, default: 30 } });
    const r2 = await call('POST', CRDS, {
      body: {
        ...badDefault,
        metadata: { name: 'widgets.other.example.com' },
        spec: {
          ...badDefault.spec,
          group: 'other.example.com',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        },
      },
    });
    expect(r2.status).toBe(422);
    expect(message(r2)).toContain(
      'spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: 30: spec.validation.openAPIV3Schema.properties[spec].properties[size].default in body should be less than or equal to 9',
    );
  });
});
