// x-kubernetes-validations over HTTP: the rule at object write, transition rules, rules that fail
// to compile or cost too much refused at CRD write, and a hostile object refused at the per-call
// cost limit while the server keeps answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type ApiResponse, apiClient } from '../../helpers/api-client.js';
import { CRDS_PATH, installCrd, simpleCrd } from '../../helpers/crds.js';

const message = (r: ApiResponse): string => (r.json as { message: string }).message;

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

/** The CRD of `plural` whose `spec` has this schema. */
const crdOf = (plural: string, spec: Record<string, unknown>) =>
  simpleCrd('cel.example.com', plural, { type: 'object', properties: { spec } });
const install = (plural: string, spec: Record<string, unknown>): Promise<void> => installCrd(call, crdOf(plural, spec));

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  await install('caches', {
    type: 'object',
    'x-kubernetes-validations': [
      { rule: 'self.maxSize >= self.size', message: 'maxSize must be >= size' },
      { rule: 'self.engine == oldSelf.engine', message: 'engine is immutable' },
    ],
    properties: { size: { type: 'integer' }, maxSize: { type: 'integer' }, engine: { type: 'string' } },
  });
});
afterAll(async () => {
  await server?.close();
});

const caches = '/apis/cel.example.com/v1/namespaces/default/caches';
const cache = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'cel.example.com/v1',
  kind: 'Cache',
  metadata: { name },
  spec,
});

describe('rules at object write', () => {
  it('refuses what a rule rejects with kube’s text, and accepts the rest', async () => {
    const bad = await call('POST', caches, { body: cache('bad', { size: 5, maxSize: 2, engine: 'redis' }) });
    expect([bad.status, message(bad)]).toEqual([
      422,
      'Cache.cel.example.com "bad" is invalid: spec: Invalid value: "object": maxSize must be >= size',
    ]);
    expect((await call('POST', caches, { body: cache('good', { size: 5, maxSize: 6, engine: 'redis' }) })).status).toBe(
      201,
    );
  });

  it('runs transition rules (oldSelf) on update only', async () => {
    const changed = await call('PATCH', `${caches}/good`, {
      body: { spec: { engine: 'valkey' } },
      contentType: 'application/merge-patch+json',
    });
    expect([changed.status, message(changed)]).toEqual([
      422,
      'Cache.cel.example.com "good" is invalid: spec: Invalid value: "object": engine is immutable',
    ]);
    expect(
      (
        await call('PATCH', `${caches}/good`, {
          body: { spec: { size: 6 } },
          contentType: 'application/merge-patch+json',
        })
      ).status,
    ).toBe(200);
  });
});

describe('rules at CRD write', () => {
  it('refuses a rule that does not compile against the schema', async () => {
    const r = await call('POST', CRDS_PATH, {
      body: crdOf('typos', {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.replicaz > 0' }],
        properties: { replicas: { type: 'integer' } },
      }),
    });
    expect(r.status).toBe(422);
    expect(message(r)).toContain("compilation failed: ERROR: <input>:1:5: undefined field 'replicaz'");
  });

  it('refuses a rule too expensive for unbounded data, with kube’s texts', async () => {
    const r = await call('POST', CRDS_PATH, {
      body: crdOf('costlies', {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: 'self.items.all(x, self.items.all(y, self.items.all(z, x + y + z != "")))' },
        ],
        properties: { items: { type: 'array', items: { type: 'string' } } },
      }),
    });
    expect(r.status).toBe(422);
    expect(message(r)).toBe(
      'CustomResourceDefinition.apiextensions.k8s.io "costlies.cel.example.com" is invalid: [spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared), spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema, spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)]',
    );
  });
});

describe('a hostile object', () => {
  // The bound is the per-call cost limit: the rule is cancelled where its cost passes 1,000,000
  // (of the 1,000,000 comparisons it would make), with kube's text naming that limit, not the
  // request's budget. That the evaluation stops there, rather than finishing and then being
  // refused, is the evaluator's own test (test/unit/cel/eval.test.ts counts the work).
  it('is refused at the per-call cost limit while the server keeps answering', async () => {
    // Within the static estimate (maxItems bounds it), far beyond the per-call runtime limit.
    await install('hostiles', {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.items.all(x, self.items.all(y, x <= y || y <= x))' }],
      properties: { items: { type: 'array', maxItems: 1000, items: { type: 'integer' } } },
    });
    const pending = call('POST', '/apis/cel.example.com/v1/namespaces/default/hostiles', {
      body: {
        apiVersion: 'cel.example.com/v1',
        kind: 'Hostile',
        metadata: { name: 'h' },
        spec: { items: Array.from({ length: 1000 }, (_, i) => i) },
      },
    });
    const meanwhile = await call('GET', '/version');
    expect(meanwhile.status).toBe(200);
    const r = await pending;
    expect(r.status).toBe(422);
    expect(message(r)).toBe(
      `Hostile.cel.example.com "h" is invalid: spec: Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.items.all(x, self.items.all(y, x <= y || y <= x))`,
    );
  });
});
