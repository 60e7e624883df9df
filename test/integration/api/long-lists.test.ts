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

describe("admissionregistration lists past a call's arguments", () => {
  const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
  const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
  const WEBHOOKS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
  const M = 150_000;
  /** `{ "-f0": "v", ... }`: M label keys, each refused once. */
  const badLabels = (): Record<string, string> =>
    Object.fromEntries(Array.from({ length: M }, (_, i) => [`-f${i}`, 'v']));
  const rule = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] };
  const binding = (name: string, matchResources: object) => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: 'p', validationActions: ['Deny'], matchResources },
  });
  const causesOf = (json: unknown) => (json as { details: { causes: Array<{ field: string }> } }).details.causes;

  it("a binding's namespaceSelector of bad label keys: kube's 422, one cause each", async () => {
    const r = await call('POST', BINDINGS, {
      body: binding('labels', { namespaceSelector: { matchLabels: badLabels() } }),
    });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    expect(causesOf(r.json)).toHaveLength(M);
    expect(causesOf(r.json)[0]!.field).toBe('spec.matchResouces.namespaceSelector.matchLabels');
  });

  it("a binding's excluded rule of unknown operations: kube's 422, one cause each", async () => {
    const excluded = { ...rule, operations: Array<string>(M).fill('x') };
    const r = await call('POST', BINDINGS, { body: binding('ops', { excludeResourceRules: [excluded] }) });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    expect(causesOf(r.json)).toHaveLength(M);
    expect(causesOf(r.json)[0]!.field).toBe('spec.matchResouces.excludeResourceRules[0].operations[0]');
  });

  it("a policy's objectSelector of bad label keys: kube's 422, one cause each", async () => {
    const body = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'labels' },
      spec: {
        matchConstraints: { resourceRules: [rule], objectSelector: { matchLabels: badLabels() } },
        validations: [{ expression: 'true' }],
      },
    };
    const r = await call('POST', POLICIES, { body });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    expect(causesOf(r.json)).toHaveLength(M);
    expect(causesOf(r.json)[0]!.field).toBe('spec.matchConstraints.objectSelector.matchLabels');
  });

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

  it("a webhook's unnamed, empty matchConditions: kube's 422, past the limit and each one's two", async () => {
    const body = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'conditions' },
      webhooks: [
        {
          name: 'w.example.com',
          clientConfig: { url: 'https://example.com/hook' },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          matchConditions: Array.from({ length: M }, () => ({})),
        },
      ],
    };
    const r = await call('POST', WEBHOOKS, { body });
    expect(r.status, r.text.slice(0, 300)).toBe(422);
    expect(causesOf(r.json)).toHaveLength(1 + 2 * M);
    expect(causesOf(r.json)[0]!.field).toBe('webhooks[0].matchConditions');
  });
});
