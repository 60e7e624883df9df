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
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
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
});
