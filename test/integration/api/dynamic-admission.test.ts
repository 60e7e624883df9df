// Admission configured by API objects, end to end over HTTPS against an in-process server: real
// node:https webhooks with their own CA (validating denial, a mutating JSONPatch, a hung webhook
// under Ignore and Fail), and a ValidatingAdmissionPolicy limiting spec.size by a param ConfigMap
// in Deny and Warn modes. A webhook that is down blocks only what it matches. On both backends:
// the configurations reach the plugins through informers over storage.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ServerOptions, startServer, type ServerHandle } from '../../../server/index.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { type AdmissionWebhook, startAdmissionWebhook } from '../../helpers/admission-webhook.js';
import { type ApiResponse, type CallOptions, apiClient } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const AR = '/apis/admissionregistration.k8s.io/v1';
const WIDGETS = '/apis/adm.example.com/v1/namespaces/default/widgets';
const CRD = simpleCrd('adm.example.com', 'widgets', {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
});

let server: ServerHandle;
let call: (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: Json }>;
let webhook: AdmissionWebhook | undefined;
let webhookUrl: string;
let caBundle: string;
/** Every AdmissionReview request the webhook saw, by path. */
const seen: Array<{ path: string; request: Json }> = [];

/** The webhook's behaviour per path: /deny-big, /add-label, /hang. */
function answer(path: string, request: Json): Json | undefined {
  const object = request['object'] as Json;
  switch (path) {
    case '/deny-big':
      return (object['spec']?.['size'] ?? 0) > 5
        ? { allowed: false, status: { code: 403, message: 'size over 5' } }
        : { allowed: true };
    case '/add-label': {
      const op = object['metadata']['labels']
        ? { op: 'add', path: '/metadata/labels/mutated', value: 'yes' }
        : { op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } };
      return {
        allowed: true,
        patchType: 'JSONPatch',
        patch: Buffer.from(JSON.stringify([op])).toString('base64'),
        warnings: ['labelled by the webhook'],
      };
    }
    case '/number-in-data':
      return {
        allowed: true,
        patchType: 'JSONPatch',
        patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data', value: { x: 5 } }])).toString('base64'),
      };
    case '/deny-blocked-ns':
      return object['metadata']['name'] === 'blocked'
        ? { allowed: false, status: { code: 403, message: 'no blocked namespaces' } }
        : { allowed: true };
    default:
      return undefined; // /hang: never answers
  }
}

beforeAll(async () => {
  webhook = await startAdmissionWebhook(answer, seen);
  webhookUrl = webhook.url;
  caBundle = webhook.caBundle;
});

afterAll(async () => {
  await webhook?.close();
  await etcd?.destroy();
});

let etcd: EtcdProcess | undefined;
const backends: { name: string; options(): Promise<ServerOptions> }[] = [
  { name: 'sqlite', options: async () => ({ storage: 'memory' }) },
  {
    name: 'etcd',
    options: async () => {
      etcd ??= await startEtcd();
      return { storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: `/${randomUUID()}` };
    },
  },
];

const widget = (name: string, size: number): Json => ({
  apiVersion: 'adm.example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec: { size },
});
const webhookFor = (name: string, path: string, extra: Json = {}): Json => ({
  name,
  clientConfig: { url: `${webhookUrl}${path}`, caBundle },
  rules: [
    { operations: ['CREATE', 'UPDATE'], apiGroups: ['adm.example.com'], apiVersions: ['v1'], resources: ['widgets'] },
  ],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});

async function configure(kind: 'validating' | 'mutating', name: string, webhooks: Json[]): Promise<void> {
  const plural = `${kind}webhookconfigurations`;
  const r = await call('POST', `${AR}/${plural}`, { body: { metadata: { name }, webhooks } });
  expect(r.status, r.text).toBe(201);
}

/** Storage calls on a resource so far (/metrics' etcd_request_duration_seconds, either backend), but the object counts'. */
async function storageReads(resource: string): Promise<number> {
  const text = (await call('GET', '/metrics')).text;
  let n = 0;
  for (const line of text.split('\n')) {
    const m = /^etcd_request_duration_seconds_count\{operation="(\w+)",type="([^"]+)"\} (\d+)$/.exec(line);
    if (m && m[2] === resource && m[1] !== 'listWithCount') n += Number(m[3]);
  }
  return n;
}

async function remove(plural: string, name: string): Promise<void> {
  expect((await call('DELETE', `${AR}/${plural}/${name}`)).status).toBe(200);
}

describe.each(backends)('on $name', ({ options }) => {
  beforeAll(async () => {
    server = await startServer(await options());
    call = apiClient(server) as typeof call;
    await installCrd(call, CRD);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('admission webhooks', () => {
    it("a validating webhook denies with kube's text; its configuration is defaulted and listed", async () => {
      await configure('validating', 'deny-big', [webhookFor('deny-big.adm.example.com', '/deny-big')]);
      const stored = (await call('GET', `${AR}/validatingwebhookconfigurations/deny-big`)).json;
      expect(stored['webhooks'][0]).toMatchObject({
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        namespaceSelector: {},
        objectSelector: {},
      });
      await vi.waitFor(async () => {
        const r = await call('POST', WIDGETS, { body: widget('big', 9) });
        expect(r.status, r.text).toBe(403);
        expect(r.json['message']).toBe('admission webhook "deny-big.adm.example.com" denied the request: size over 5');
      });
      expect((await call('POST', WIDGETS, { body: widget('small', 2) })).status).toBe(201);
      const request = seen.find((s) => s.path === '/deny-big' && s.request['name'] === 'small')!.request;
      expect(request).toMatchObject({
        operation: 'CREATE',
        namespace: 'default',
        kind: { group: 'adm.example.com', version: 'v1', kind: 'Widget' },
        resource: { group: 'adm.example.com', version: 'v1', resource: 'widgets' },
        userInfo: { username: 'admin' },
      });
      await remove('validatingwebhookconfigurations', 'deny-big');
    });

    it('a mutating webhook labels the object through a JSONPatch, and its warning reaches the client', async () => {
      await configure('mutating', 'add-label', [webhookFor('add-label.adm.example.com', '/add-label')]);
      await vi.waitFor(async () => {
        const r = await call('POST', WIDGETS, { body: widget(`labelled-${seen.length}`, 1) });
        expect(r.status, r.text).toBe(201);
        expect(r.json['metadata']['labels']).toEqual({ mutated: 'yes' });
        expect(String(r.headers['warning'])).toContain('labelled by the webhook');
      });
      await remove('mutatingwebhookconfigurations', 'add-label');
    });

    it("a webhook's patch that no longer decodes is kube's 500 InternalError, not the request's 400", async () => {
      await configure('mutating', 'number-in-data', [
        webhookFor('number-in-data.adm.example.com', '/number-in-data', {
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { 'number-in-data': 'yes' } },
        }),
      ]);
      const cm = { metadata: { name: 'patched-data', labels: { 'number-in-data': 'yes' } } };
      await vi.waitFor(async () => {
        const r = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm });
        expect(r.status, r.text).toBe(500);
        const message = 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string';
        expect(r.json).toMatchObject({
          reason: 'InternalError',
          message: `Internal error occurred: ${message}`,
          details: { causes: [{ message }] },
        });
      });
      // The same object sent by the client is the request's own 400.
      const sent = await call('POST', '/api/v1/namespaces/default/configmaps', {
        body: { metadata: { name: 'sent-data' }, data: { x: 5 } },
      });
      expect(sent.status, sent.text).toBe(400);
      await remove('mutatingwebhookconfigurations', 'number-in-data');
    });

    it('namespaces pass the chain too: a webhook matching them is called', async () => {
      await configure('validating', 'deny-ns', [
        webhookFor('deny-ns.adm.example.com', '/deny-blocked-ns', {
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] }],
        }),
      ]);
      await vi.waitFor(async () => {
        const r = await call('POST', '/api/v1/namespaces', { body: { metadata: { name: 'blocked' } } });
        expect(r.status, r.text).toBe(403);
        expect(r.json['message']).toBe(
          'admission webhook "deny-ns.adm.example.com" denied the request: no blocked namespaces',
        );
      });
      await remove('validatingwebhookconfigurations', 'deny-ns');
    });

    it('a hung webhook: Ignore lets the request through after its timeout, Fail refuses it, and only what it matches', async () => {
      await configure('validating', 'hang-ignore', [
        webhookFor('hang-ignore.adm.example.com', '/hang', { timeoutSeconds: 1, failurePolicy: 'Ignore' }),
      ]);
      await vi.waitFor(
        async () => {
          const before = seen.filter((s) => s.path === '/hang').length;
          const ignored = await call('POST', WIDGETS, { body: widget(`through-${Date.now()}`, 1) });
          expect(ignored.status, ignored.text).toBe(201);
          // Admitted after the webhook was called and did not answer, not before it was configured.
          expect(seen.filter((s) => s.path === '/hang').length).toBe(before + 1);
        },
        { timeout: 15_000, interval: 100 },
      );
      await remove('validatingwebhookconfigurations', 'hang-ignore');

      await configure('validating', 'hang-fail', [
        webhookFor('hang-fail.adm.example.com', '/hang', { timeoutSeconds: 1 }),
      ]);
      await vi.waitFor(
        async () => {
          const failed = await call('POST', WIDGETS, { body: widget(`refused-${Date.now()}`, 1) });
          expect(failed.status).toBe(500);
          expect(failed.json['message']).toMatch(
            /^Internal error occurred: failed calling webhook "hang-fail\.adm\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=1s": context deadline exceeded/,
          );
        },
        { timeout: 15_000, interval: 100 },
      );
      // Unmatched kinds, and the webhook configurations themselves, keep working.
      expect(
        (await call('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'unaffected' } } }))
          .status,
      ).toBe(201);
      await remove('validatingwebhookconfigurations', 'hang-fail');
    });
  });

  describe('ValidatingAdmissionPolicy', () => {
    it('limits spec.size by a param ConfigMap: Deny with kube’s text, then Warn', async () => {
      expect(
        (
          await call('POST', '/api/v1/namespaces/default/configmaps', {
            body: { metadata: { name: 'widget-limits' }, data: { max: '3' } },
          })
        ).status,
      ).toBe(201);
      const policy = await call('POST', `${AR}/validatingadmissionpolicies`, {
        body: {
          metadata: { name: 'widget-size' },
          spec: {
            paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
            matchConstraints: {
              resourceRules: [
                {
                  apiGroups: ['adm.example.com'],
                  apiVersions: ['v1'],
                  operations: ['CREATE', 'UPDATE'],
                  resources: ['widgets'],
                },
              ],
            },
            validations: [
              {
                expression: 'object.spec.size <= int(params.data.max)',
                messageExpression: "'size ' + string(object.spec.size) + ' is over ' + params.data.max",
              },
            ],
          },
        },
      });
      expect(policy.status, policy.text).toBe(201);
      const binding = await call('POST', `${AR}/validatingadmissionpolicybindings`, {
        body: {
          metadata: { name: 'widget-size-default' },
          spec: {
            policyName: 'widget-size',
            validationActions: ['Deny'],
            paramRef: { name: 'widget-limits', namespace: 'default', parameterNotFoundAction: 'Deny' },
          },
        },
      });
      expect(binding.status, binding.text).toBe(201);
      await vi.waitFor(async () => {
        const r = await call('POST', WIDGETS, { body: widget('too-big', 7) });
        expect(r.status, r.text).toBe(422);
        expect(r.json['message']).toBe(
          "widgets.adm.example.com \"too-big\" is forbidden: ValidatingAdmissionPolicy 'widget-size' with binding 'widget-size-default' denied request: size 7 is over 3",
        );
      });
      // Params come from the watch cache, as kube's informer lister serves them: no storage read.
      const reads = storageReads('configmaps');
      expect((await call('POST', WIDGETS, { body: widget('fits', 3) })).status).toBe(201);
      expect(await storageReads('configmaps')).toBe(await reads);

      const warn = await call('PATCH', `${AR}/validatingadmissionpolicybindings/widget-size-default`, {
        contentType: 'application/merge-patch+json',
        body: { spec: { validationActions: ['Warn'] } },
      });
      expect(warn.status, warn.text).toBe(200);
      await vi.waitFor(async () => {
        const r = await call('POST', WIDGETS, { body: widget(`warned-${Date.now()}`, 8) });
        expect(r.status, r.text).toBe(201);
        expect(String(r.headers['warning'])).toContain(
          "Validation failed for ValidatingAdmissionPolicy 'widget-size' with binding 'widget-size-default': size 8 is over 3",
        );
      });
    });

    it("writes status.typeChecking: an expression's unknown field, against the matched CRD's schema", async () => {
      const r = await call('POST', `${AR}/validatingadmissionpolicies`, {
        body: {
          metadata: { name: 'typo' },
          spec: {
            matchConstraints: {
              resourceRules: [
                { apiGroups: ['adm.example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] },
              ],
            },
            validations: [{ expression: 'object.spec.sise < 10' }],
          },
        },
      });
      expect(r.status, r.text).toBe(201);
      await vi.waitFor(async () => {
        const status = (await call('GET', `${AR}/validatingadmissionpolicies/typo`)).json['status'];
        expect(status['observedGeneration']).toBe(1);
        expect(status['typeChecking']['expressionWarnings']).toHaveLength(1);
        expect(status['typeChecking']['expressionWarnings'][0]).toMatchObject({
          fieldRef: 'spec.validations[0].expression',
        });
        expect(status['typeChecking']['expressionWarnings'][0]['warning']).toMatch(
          /^adm\.example\.com\/v1, Kind=Widget: ERROR: <input>:1:\d+: undefined field 'sise'/,
        );
      });
    });

    it('validates policies at write with kube’s messages', async () => {
      const r = await call('POST', `${AR}/validatingadmissionpolicies`, {
        body: { metadata: { name: 'bad' }, spec: { validations: [{ expression: 'object.spec.size <' }] } },
      });
      expect(r.status).toBe(422);
      expect(r.json['message']).toContain('spec.matchConstraints: Required value');
    });
  });
});
