// Requests whose documents hold lists longer than a function call takes arguments (V8 refuses a
// spread of about 100,000 and more: RangeError): each is answered as any other, within the
// request body limit, never with a 500. The validators' own long lists (150,000 bad label keys,
// operations, matchConditions) are unit tests of those validators
// (test/unit/apimachinery/validation/object-meta.test.ts,
// test/unit/server/registry/builtin/admissionregistration.test.ts); here, one such 422 through HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';

const N = 200_000;
const THINGS = '/apis/long.example.com/v1/namespaces/default/things';
const CRD = simpleCrd('long.example.com', 'things', {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k'],
          items: { type: 'object', required: ['k'], properties: { k: { type: 'integer' } } },
        },
      },
    },
  },
});

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  await installCrd(call, CRD);
});
afterAll(async () => {
  await server?.close();
});

/** `{ f0: 1, f1: 1, ... }`, n members. */
const members = (n: number): Record<string, number> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 1]));

describe(`${N} of a kind in one request`, () => {
  it('unknown metadata fields of a custom resource: pruned, and the create served', async () => {
    const body = { apiVersion: 'long.example.com/v1', kind: 'Thing', metadata: { name: 'meta', ...members(N) } };
    const r = await call('POST', `${THINGS}?fieldValidation=Ignore`, { body });
    expect(r.status, r.text.slice(0, 300)).toBe(201);
    expect(Object.keys((r.json as { metadata: object }).metadata)).not.toContain('f0');
  });

  it("duplicate keys of a map-typed list in a server-side apply: the field manager's 400", async () => {
    const items = Array.from({ length: N }, () => ({ k: 1 }));
    const body = { apiVersion: 'long.example.com/v1', kind: 'Thing', metadata: { name: 'dups' }, spec: { items } };
    const r = await call('PATCH', `${THINGS}/dups?fieldManager=bench`, {
      raw: JSON.stringify(body),
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.status, r.text.slice(0, 300)).toBe(400);
    const lines = (r.json as { message: string }).message.split('\n');
    expect(lines[0]).toBe('failed to create typed patch object (/dups; long.example.com/v1, Kind=Thing): errors:');
    expect(lines.slice(1)).toEqual(Array(N - 1).fill('  .spec.items: duplicate entries for key [k=1]'));
  });
});

describe("admissionregistration lists past a call's arguments", () => {
  const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
  const M = 150_000;
  const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] };
  const causesOf = (json: unknown) => (json as { details: { causes: Array<{ field: string }> } }).details.causes;

  it("a policy's status of empty conditions: kube's 422, five causes each and a duplicate type after the first", async () => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'conditions' },
      spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'true' }] },
    };
    const created = await call('POST', POLICIES, { body: policy });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const conditions = Array.from({ length: M / 5 }, () => ({}));
    const r = await call('PATCH', `${POLICIES}/conditions/status`, {
      raw: JSON.stringify({ status: { conditions } }),
      contentType: 'application/merge-patch+json',
    });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    expect(causesOf(r.json)).toHaveLength(6 * (M / 5) - 1);
    expect(causesOf(r.json)[0]!.field).toBe('status.conditions[0].type');
  });
});
