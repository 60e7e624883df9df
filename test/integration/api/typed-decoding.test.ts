// Built-in kinds decoded as kube decodes them into their Go types: a field the type does not have
// is dropped, with kube's warning by default, refused under fieldValidation=Strict (400 for a body,
// 422 for a patch), dropped silently under Ignore; an apply configuration with such a field is
// refused by the structured merge, as in kube.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;
beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
});
afterAll(async () => server?.close());

const CMS = '/api/v1/namespaces/default/configmaps';
interface ConfigMap {
  metadata: Record<string, unknown>;
  data?: Record<string, string>;
}
const typo = (name: string): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, lables: { a: 'b' } },
  datta: { k: 'v' },
  data: { k: 'v' },
});
// Node joins repeated headers with ", ".
const warnings = (h: Record<string, string | string[] | undefined>): string[] =>
  [h['warning'] ?? []].flat().flatMap((w) => w.split(/, (?=299 )/));

describe('unknown fields of a built-in kind', () => {
  it('create: dropped, with a warning for each (the default, Warn)', async () => {
    const r = await call('POST', CMS, { body: typo('warned') });
    expect(r.status).toBe(201);
    // In document order, as kube's decoder meets them.
    expect(warnings(r.headers)).toEqual([
      '299 - "unknown field \\"metadata.lables\\""',
      '299 - "unknown field \\"datta\\""',
    ]);
    const stored = (await call('GET', `${CMS}/warned`)).json as ConfigMap;
    expect(stored).not.toHaveProperty('datta');
    expect(stored.metadata).not.toHaveProperty('lables');
    expect(stored.data).toEqual({ k: 'v' });
  });

  it("create with fieldValidation=Strict: kube's 400", async () => {
    const r = await call('POST', `${CMS}?fieldValidation=Strict`, { body: typo('strict') });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.lables", unknown field "datta"',
    });
    expect((await call('GET', `${CMS}/strict`)).status).toBe(404);
  });

  it('Ignore: dropped without a word', async () => {
    const r = await call('POST', `${CMS}?fieldValidation=Ignore`, { body: typo('ignored') });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual([]);
    expect((await call('GET', `${CMS}/ignored`)).json).not.toHaveProperty('datta');
  });

  it('update (PUT): dropped with a warning, said once', async () => {
    const current = (await call('GET', `${CMS}/warned`)).json as ConfigMap;
    const r = await call('PUT', `${CMS}/warned`, { body: { ...current, datta: 1 } });
    expect(r.status).toBe(200);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"datta\\""']);
    expect(r.json).not.toHaveProperty('datta');
  });

  it('merge patch: what the patched object has no field for is dropped; Strict refuses the patch with 422', async () => {
    const patch = (q: string) =>
      call('PATCH', `${CMS}/warned${q}`, { body: { dataa: { x: 'y' } }, contentType: 'application/merge-patch+json' });
    const warned = await patch('');
    expect(warned.status).toBe(200);
    expect(warnings(warned.headers)).toEqual(['299 - "unknown field \\"dataa\\""']);
    expect(warned.json).not.toHaveProperty('dataa');
    const strict = await patch('?fieldValidation=Strict');
    expect(strict.status).toBe(422);
    expect((strict.json as { message: string }).message).toContain('strict decoding error: unknown field "dataa"');
  });

  it('a Service: inside a list of ports, by index', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/services', {
      body: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { ports: [{ port: 80, targetPrt: 8080 }] },
      },
    });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"spec.ports[0].targetPrt\\""']);
    expect((r.json as { spec: { ports: object[] } }).spec.ports[0]).not.toHaveProperty('targetPrt');
  });

  it('admissionregistration kinds too (their schema says what their Go types have)', async () => {
    const r = await call('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'typo' },
        spec: { policyName: 'p', validationActions: ['Deny'], polcyName: 'q' },
      },
    });
    expect(r.status).toBe(201);
    expect(warnings(r.headers)).toEqual(['299 - "unknown field \\"spec.polcyName\\""']);
    expect((r.json as { spec: object }).spec).not.toHaveProperty('polcyName');
  });

  it("server-side apply: a field the kind's schema lacks is kube's structured-merge refusal", async () => {
    const r = await call('PATCH', `${CMS}/applied?fieldManager=m`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, datta: { k: 'v' } },
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.status).toBe(400);
    expect((r.json as { message: string }).message).toBe(
      // kube names the object as the configuration names it: here without a namespace.
      'failed to create typed patch object (/applied; /v1, Kind=ConfigMap): .datta: field not declared in schema',
    );
    expect((await call('GET', `${CMS}/applied`)).status).toBe(404);
  });
});
