// What mutating admission sees of a write and what follows a webhook's patch, as kube-apiserver
// orders them, against real HTTPS webhooks: the request is decoded first (a custom resource pruned
// and defaulted, unknown fields told to fieldValidation, whose Strict refuses before any webhook is
// called); after a webhook's patch the object is defaulted again (the next webhook sees that), and
// what the schema does not know is pruned when it is stored, without a word to the client.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type AdmissionWebhook, startAdmissionWebhook } from '../../helpers/admission-webhook.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const AR = '/apis/admissionregistration.k8s.io/v1';
const WIDGETS = '/apis/dec.example.com/v1/namespaces/default/widgets';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const CRD = simpleCrd('dec.example.com', 'widgets', {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { size: { type: 'integer' }, color: { type: 'string', default: 'blue' } },
    },
  },
});

let server: ServerHandle;
let call: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: Json }>;
let webhook: AdmissionWebhook;
const seen: Array<{ path: string; request: Json }> = [];

const patchOf = (ops: Json[]): Json => ({
  allowed: true,
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
});

/**
 * /mutate: on widgets, adds spec.added (unknown to the schema) and removes spec.color (defaulted);
 * on configmaps, adds a top-level field ConfigMap has not. Both with a warning. /after: looks only.
 */
function answer(path: string, request: Json): Json | undefined {
  if (path === '/after') return { allowed: true };
  const object = request['object'] as Json;
  const ops =
    object['kind'] === 'ConfigMap'
      ? [{ op: 'add', path: '/added', value: 'x' }]
      : [
          { op: 'add', path: '/spec/added', value: 'x' },
          ...(object['spec']?.['color'] === undefined ? [] : [{ op: 'remove', path: '/spec/color' }]),
        ];
  return { ...patchOf(ops), warnings: ['mutated by the webhook'] };
}

const rule = (apiGroups: string[], resources: string[]): Json => ({
  operations: ['CREATE', 'UPDATE'],
  apiGroups,
  apiVersions: ['v1'],
  resources,
});
const hook = (name: string, path: string): Json => ({
  name,
  clientConfig: { url: `${webhook.url}${path}`, caBundle: webhook.caBundle },
  rules: [rule(['dec.example.com'], ['widgets']), rule([''], ['configmaps'])],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
});

const widget = (name: string, spec: Json, metadata: Json = {}): Json => ({
  apiVersion: 'dec.example.com/v1',
  kind: 'Widget',
  metadata: { name, ...metadata },
  spec,
});

/** The objects /mutate and /after were sent for the widget or configmap `name`, in order. */
const sentFor = (path: string, name: string): Json[] =>
  seen.filter((s) => s.path === path && s.request['object']?.['metadata']?.['name'] === name).map((s) => s.request);

beforeAll(async () => {
  webhook = await startAdmissionWebhook(answer, seen);
  server = await startServer({ storage: 'memory' });
  call = apiClient(server) as typeof call;
  await installCrd(call, CRD);
  const r = await call('POST', `${AR}/mutatingwebhookconfigurations`, {
    body: {
      metadata: { name: 'decoding' },
      webhooks: [hook('mutate.dec.example.com', '/mutate'), hook('after.dec.example.com', '/after')],
    },
  });
  expect(r.status, r.text).toBe(201);
  // The configuration reaches the plugin through an informer: wait until a create is admitted by it.
  await vi.waitFor(async () => {
    const name = `ready-${seen.length}`;
    expect((await call('POST', WIDGETS, { body: widget(name, { size: 1 }) })).status).toBe(201);
    expect(sentFor('/mutate', name)).toHaveLength(1);
  });
});

afterAll(async () => {
  await server?.close();
  await webhook?.close();
});

describe('a custom resource in mutating admission', () => {
  it('reaches the webhook pruned and defaulted, as the request decoded it', async () => {
    const r = await call('POST', `${WIDGETS}?fieldValidation=Ignore`, {
      body: widget('pruned', { size: 1, extra: 'x' }, { unknownMeta: 'y' }),
    });
    expect(r.status, r.text).toBe(201);
    const [sent] = sentFor('/mutate', 'pruned');
    expect(sent!['object']['spec']).toEqual({ size: 1, color: 'blue' });
    expect(sent!['object']['metadata']).not.toHaveProperty('unknownMeta');
  });

  it("is defaulted again after a webhook's patch, which the next webhook sees with the patch's unknown field", async () => {
    expect((await call('POST', WIDGETS, { body: widget('next', { size: 2 }) })).status).toBe(201);
    const [sent] = sentFor('/after', 'next');
    expect(sent!['object']['spec']).toEqual({ size: 2, color: 'blue', added: 'x' });
  });

  it('is stored without what a webhook added that the schema does not know, with the default it removed', async () => {
    for (const fieldValidation of ['Strict', 'Warn', 'Ignore']) {
      const name = `stored-${fieldValidation.toLowerCase()}`;
      const r = await call('POST', `${WIDGETS}?fieldValidation=${fieldValidation}`, {
        body: widget(name, { size: 3 }),
      });
      // A webhook's fields are not the client's: no strict decoding error, no warning of them.
      expect([r.status, r.headers['warning']], r.text).toEqual([201, '299 - "mutated by the webhook"']);
      expect(r.json['spec']).toEqual({ size: 3, color: 'blue' });
      expect((await call('GET', `${WIDGETS}/${name}`)).json['spec']).toEqual({ size: 3, color: 'blue' });
    }
  });

  it('an update is admitted and stored the same way', async () => {
    const current = (await call('GET', `${WIDGETS}/stored-strict`)).json;
    const r = await call('PUT', `${WIDGETS}/stored-strict?fieldValidation=Strict`, {
      body: { ...current, spec: { size: 4, color: 'red' } },
    });
    expect([r.status, r.headers['warning']], r.text).toEqual([200, '299 - "mutated by the webhook"']);
    expect(r.json['spec']).toEqual({ size: 4, color: 'blue' });
    const sent = sentFor('/mutate', 'stored-strict').at(-1)!;
    expect([sent['operation'], sent['object']['spec']]).toEqual(['UPDATE', { size: 4, color: 'red' }]);
  });
});

describe('a built-in kind in mutating admission', () => {
  it("a webhook's field the kind does not have is dropped without a word, under Strict too", async () => {
    const r = await call('POST', `${CONFIGMAPS}?fieldValidation=Strict`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'webhooked' }, data: { a: 'b' } },
    });
    expect([r.status, r.headers['warning']], r.text).toEqual([201, '299 - "mutated by the webhook"']);
    expect(r.json).not.toHaveProperty('added');
  });
});

describe('fieldValidation is decoding: before any webhook is called', () => {
  const calls = (): number => seen.length;

  it('Strict refuses a create with an unknown field with no webhook called', async () => {
    const before = calls();
    const r = await call('POST', `${WIDGETS}?fieldValidation=Strict`, { body: widget('strict', { size: 1, sise: 2 }) });
    expect([r.status, r.json['message']]).toEqual([
      400,
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.sise"',
    ]);
    expect(calls()).toBe(before);
  });

  it('Strict refuses an update and a merge patch with an unknown field with no webhook called', async () => {
    const current = (await call('GET', `${WIDGETS}/stored-warn`)).json;
    const before = calls();
    const put = await call('PUT', `${WIDGETS}/stored-warn?fieldValidation=Strict`, {
      body: { ...current, spec: { size: 1, sise: 2 } },
    });
    expect([put.status, put.json['message']]).toEqual([
      400,
      'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.sise"',
    ]);
    const patch = await call('PATCH', `${WIDGETS}/stored-warn?fieldValidation=Strict`, {
      body: { spec: { sise: 2 } },
      contentType: 'application/merge-patch+json',
    });
    expect(patch.status).toBe(422);
    expect(patch.json['message']).toMatch(/strict decoding error: unknown field "spec.sise"$/);
    expect(calls()).toBe(before);
  });

  it("Warn: the unknown fields' warnings, in their order, before the webhook's", async () => {
    const r = await call('POST', WIDGETS, { body: widget('warned', { size: 1, zz: 1, aa: 2 }) });
    expect(r.status, r.text).toBe(201);
    expect(r.headers['warning']).toBe(
      '299 - "unknown field \\"spec.aa\\"", 299 - "unknown field \\"spec.zz\\"", 299 - "mutated by the webhook"',
    );
  });
});
