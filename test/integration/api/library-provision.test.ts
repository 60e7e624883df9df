// startServer's `crds` and `webhooks`, as a controller's test would use them: CRDs from a path,
// YAML text and an object, served the moment startServer resolves; kubebuilder's webhook
// configuration, its `service:` routed to a local webhook server trusted by the CA given, or by
// the certificate startServer made; and a start that fails on a CRD whose names are refused.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError, startServer } from '../../../server/index.js';
import { type AdmissionWebhook, startAdmissionWebhook } from '../../helpers/admission-webhook.js';
import { apiClient } from '../../helpers/api-client.js';

const CACHE_CRD = new URL('../../../examples/cache-crd.yaml', import.meta.url).pathname;

const crdYaml = (plural: string, kind: string): string => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.provision.example.com}
spec:
  group: provision.example.com
  scope: Namespaced
  names: {plural: ${plural}, singular: ${plural.slice(0, -1)}, kind: ${kind}}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

// What kubebuilder generates in config/webhook/manifests.yaml: a service reference, no caBundle.
const KUBEBUILDER_WEBHOOKS = `
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /validate-cache-example-com-v1-cache
  failurePolicy: Fail
  name: vcache.kb.io
  rules:
  - apiGroups: [cache.example.com]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [caches]
  sideEffects: None
`;

const cache = (name: string, size: number) => ({
  apiVersion: 'cache.example.com/v1',
  kind: 'Cache',
  metadata: { name },
  spec: { size },
});

/** Refuses a Cache whose size is over 5, as a kubebuilder validator would. */
const sizeCheck = (_path: string, request: Record<string, unknown>) =>
  (request['object'] as { spec: { size: number } }).spec.size > 5
    ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'size over 5' } }
    : { allowed: true };

describe('crds', () => {
  it('from a path, YAML text and an object: every one served once startServer resolves', async () => {
    await using server = await startServer({
      crds: [
        CACHE_CRD,
        crdYaml('widgets', 'Widget'),
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'gadgets.provision.example.com' },
          spec: {
            group: 'provision.example.com',
            scope: 'Namespaced',
            names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
              },
            ],
          },
        },
      ],
    });
    const call = apiClient(server);
    for (const path of [
      '/apis/cache.example.com/v1/namespaces/default/caches',
      '/apis/provision.example.com/v1/namespaces/default/widgets',
      '/apis/provision.example.com/v1/namespaces/default/gadgets',
    ])
      expect((await call('GET', path)).status, path).toBe(200);
  });

  it('a CRD whose names are refused fails the start, naming it and why', async () => {
    const err = await startServer({
      crds: [crdYaml('widgets', 'Widget'), crdYaml('others', 'Widget')],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(/^CustomResourceDefinition others\.provision\.example\.com: .*Widget/);
  });
});

describe('webhooks', () => {
  let hook: AdmissionWebhook | undefined;
  afterAll(async () => {
    await hook?.close();
  });

  it("kubebuilder's service reference goes to the local webhook, trusted by the CA given", async () => {
    hook = await startAdmissionWebhook(sizeCheck);
    await using server = await startServer({
      crds: [CACHE_CRD],
      webhooks: {
        url: hook.url,
        caCert: Buffer.from(hook.caBundle, 'base64').toString('utf8'),
        configurations: [KUBEBUILDER_WEBHOOKS],
      },
    });
    expect(server.webhookTls).toBeUndefined();
    const call = apiClient(server);
    const refused = await call('POST', '/apis/cache.example.com/v1/namespaces/default/caches', {
      body: cache('big', 9),
    });
    expect(refused.status).toBe(403);
    expect((refused.json as { message: string }).message).toBe(
      'admission webhook "vcache.kb.io" denied the request: size over 5',
    );
    const allowed = await call('POST', '/apis/cache.example.com/v1/namespaces/default/caches', {
      body: cache('small', 2),
    });
    expect(allowed.status).toBe(201);
    expect(hook.seen.map((s) => s.path)).toEqual([
      '/validate-cache-example-com-v1-cache',
      '/validate-cache-example-com-v1-cache',
    ]);
    // The configuration as stored names the local URL, as envtest's rewritten one does.
    const stored = await call(
      'GET',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration',
    );
    const clientConfig = (stored.json as { webhooks: { clientConfig: { url: string } }[] }).webhooks[0]!.clientConfig;
    expect(clientConfig.url).toBe(`${hook.url}/validate-cache-example-com-v1-cache`);
  });

  it('without a CA, startServer makes the certificate the local webhook serves with', async () => {
    // A port for the webhook, known before the server starts: it is called only once Caches are written.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    await using server = await startServer({
      crds: [CACHE_CRD],
      webhooks: { url: `https://127.0.0.1:${port}`, configurations: [KUBEBUILDER_WEBHOOKS] },
    });
    const tls = server.webhookTls!;
    const seen: string[] = [];
    const webhook = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          request: { uid: string; object: { spec: { size: number } } };
        };
        seen.push((req.url ?? '').split('?')[0]!);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request.uid, ...sizeCheck('', review.request) },
          }),
        );
      });
    });
    await new Promise<void>((r) => webhook.listen(port, '127.0.0.1', r));
    try {
      const call = apiClient(server);
      const refused = await call('POST', '/apis/cache.example.com/v1/namespaces/default/caches', {
        body: cache('big', 9),
      });
      expect(refused.status).toBe(403);
      expect(seen).toEqual(['/validate-cache-example-com-v1-cache']);
    } finally {
      webhook.closeAllConnections();
      await new Promise<void>((r) => webhook.close(() => r()));
    }
  });
});
