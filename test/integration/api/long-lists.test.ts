// Requests whose documents hold lists longer than a function call takes arguments (V8 refuses a
// spread of about 100,000 and more: RangeError): each is answered as any other, within the
// request body limit, never with a 500.
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

  it("bad label keys: kube's 422, one cause each", async () => {
    const labels = Object.fromEntries(Array.from({ length: 150_000 }, (_, i) => [`-f${i}`, 'v']));
    const body = { apiVersion: 'long.example.com/v1', kind: 'Thing', metadata: { name: 'labels', labels } };
    const r = await call('POST', THINGS, { body });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    const causes = (r.json as { details: { causes: Array<{ field: string }> } }).details.causes;
    expect(causes).toHaveLength(150_000);
    expect(causes[0]!.field).toBe('metadata.labels');
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
