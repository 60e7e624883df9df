// CR conversion: strategy None, and strategy Webhook against real HTTPS webhooks started here
// (v1 spec.size <-> v2 spec.replicas), including every way a webhook can fail.
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { once } from 'node:events';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConversionError, converterFor, type ConverterOptions } from '../../../crd/conversion.js';
import { goDuration } from '../../../webhook/client.js';
import type { CRDSpec, CustomResourceDefinition } from '../../../apimachinery/apis/apiextensions.js';
import { ApiError } from '../../../apimachinery/errors.js';
import { generateCa, generatePki, issueServingCert, type KeyPair, type ServingTls } from '../../../server/pki.js';
import type { KubeObject } from '../../../apimachinery/object.js';

const GROUP = 'cache.example.com';
const V1 = `${GROUP}/v1`;
const V2 = `${GROUP}/v2`;
const FOR_V1 = `conversion webhook for ${V1}, Kind=Cache`;
const FOR_LIST = `conversion webhook for ${V2}, Kind=CacheList`;

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function crd(conversion?: CRDSpec['conversion']): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `caches.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'caches', singular: 'cache', kind: 'Cache', listKind: 'CacheList' },
      versions: [
        { name: 'v1', served: true, storage: true },
        { name: 'v2', served: true, storage: false },
      ],
      ...(conversion ? { conversion } : {}),
    },
  };
}

type ClientConfig = NonNullable<NonNullable<CRDSpec['conversion']>['webhook']>['clientConfig'];
const webhookCRD = (clientConfig: ClientConfig, conversionReviewVersions = ['v1']): CustomResourceDefinition =>
  crd({ strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions } });

function cache(version: 'v1' | 'v2', name: string, n = 3): KubeObject {
  return {
    apiVersion: `${GROUP}/${version}`,
    kind: 'Cache',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '7',
      generation: 2,
      labels: { app: name },
    },
    spec: version === 'v1' ? { engine: 'redis', size: n } : { engine: 'redis', replicas: n },
  };
}

// ---------------------------------------------------------------------------------------------
// A conversion webhook, as a controller would serve it.

interface Review {
  apiVersion: string;
  kind: string;
  request: { uid: string; desiredAPIVersion: string; objects: KubeObject[] };
  response: unknown;
}

type Reply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | 'hang'
  | 'destroy'
  | ((res: ServerResponse) => void);

interface Hook {
  url: string;
  port: number;
  reviews: Review[];
  requests: { method: string; url: string; headers: IncomingHttpHeaders }[];
  /** Resolves with the first connection the webhook accepts. */
  connection: Promise<Socket>;
}

/** The field rename between versions: v1 spec.size is v2 spec.replicas. */
function convertCache(obj: KubeObject, desired: string): KubeObject {
  const out = structuredClone(obj);
  const spec = out['spec'] as Record<string, unknown>;
  const from = String(obj.apiVersion).split('/')[1];
  const to = desired.split('/')[1];
  if (from === 'v1' && to === 'v2') {
    spec['replicas'] = spec['size'];
    delete spec['size'];
  } else if (from === 'v2' && to === 'v1') {
    spec['size'] = spec['replicas'];
    delete spec['replicas'];
  }
  out.apiVersion = desired;
  return out;
}

const answer = (review: Review, convertedObjects: unknown[], extra: Record<string, unknown> = {}): Reply => ({
  body: {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid: review.request.uid, convertedObjects, result: { status: 'Success' } },
    ...extra,
  },
});

/** The well-behaved webhook. */
const converting = (review: Review): Reply =>
  answer(
    review,
    review.request.objects.map((o) => convertCache(o, review.request.desiredAPIVersion)),
  );

/** A webhook that converts, then lets `mutate` spoil its answer. */
const spoiled =
  (mutate: (converted: KubeObject[]) => unknown) =>
  (review: Review): Reply => {
    const converted = review.request.objects.map((o) => convertCache(o, review.request.desiredAPIVersion));
    const replaced = mutate(converted);
    return answer(review, Array.isArray(replaced) ? replaced : converted);
  };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

function track(server: HttpServer | TcpServer, sockets?: Set<Socket>): void {
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        for (const s of sockets ?? []) s.destroy();
        server.close(() => resolve());
      }),
  );
}

async function listen(server: HttpServer | TcpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startWebhook(keys: KeyPair, handle: (review: Review) => Reply): Promise<Hook> {
  let accepted!: (socket: Socket) => void;
  const connection = new Promise<Socket>((resolve) => (accepted = resolve));
  const hook: Hook = { url: '', port: 0, reviews: [], requests: [], connection };
  const server = createHttpsServer({ cert: keys.cert, key: keys.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      hook.reviews.push(review);
      hook.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const reply = handle(review);
      if (reply === 'hang') return;
      if (reply === 'destroy') return void req.socket.destroy();
      if (typeof reply === 'function') return reply(res);
      const body =
        reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json', ...reply.headers });
      res.end(body);
    });
  });
  server.on('connection', accepted);
  track(server);
  hook.port = await listen(server);
  hook.url = `https://127.0.0.1:${hook.port}/convert`;
  return hook;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the conversion to fail');
}

/** The message of a failed conversion, after checking it is kube's 500 for a plain error. */
async function failureMessage(p: Promise<unknown>): Promise<string> {
  const err = await failure(p);
  expect(err).toBeInstanceOf(ConversionError);
  expect(err.status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: '' });
  return err.message;
}

let pki: ServingTls;
let otherPki: ServingTls;
let caBundle: string;

beforeAll(async () => {
  pki = await generatePki({ ips: ['127.0.0.1'], dns: ['localhost', 'conv.webhooks.svc'] });
  otherPki = await generatePki({ ips: ['127.0.0.1'], dns: ['localhost'] });
  caBundle = b64(pki.caCert);
});

// ---------------------------------------------------------------------------------------------

describe('strategy None', () => {
  it('changes only apiVersion, and leaves the input alone', async () => {
    const obj = cache('v1', 'web-cache');
    const before = structuredClone(obj);
    const [out] = await converterFor(crd({ strategy: 'None' })).convert([obj], V2);
    expect(out).toEqual({ ...before, apiVersion: V2 });
    expect(obj).toEqual(before);
  });

  it('is the default when the CRD says nothing', async () => {
    const [out] = await converterFor(crd()).convert([cache('v2', 'a')], V1);
    expect(out!.apiVersion).toBe(V1);
    expect(out!['spec']).toEqual({ engine: 'redis', replicas: 3 });
  });

  it('returns objects already in the target version as they are', async () => {
    const a = cache('v1', 'a');
    const b = cache('v2', 'b');
    const out = await converterFor(crd()).convert([a, b], V2);
    expect(out[1]).toBe(b);
    expect(out.map((o) => o.apiVersion)).toEqual([V2, V2]);
  });

  it.each([
    {
      objects: [cache('v1', 'a')],
      to: `${GROUP}/v3`,
      want: `request to convert CR to an invalid group/version: ${GROUP}/v3`,
    },
    {
      objects: [cache('v1', 'a')],
      to: 'other.example.com/v1',
      want: `${V1}, Kind=Cache is unstructured and is not suitable for converting to "other.example.com/v1"`,
    },
    {
      objects: [{ ...cache('v1', 'a'), apiVersion: `${GROUP}/v9` }],
      to: V2,
      want: `request to convert CR from an invalid group/version: ${GROUP}/v9`,
    },
    {
      objects: [cache('v1', 'a'), { ...cache('v1', 'b'), apiVersion: `${GROUP}/v9` }],
      to: V2,
      want: `request to convert CR list failed, list index 1 has invalid group/version: ${GROUP}/v9`,
    },
  ])('refuses versions the CRD does not have: $want', async ({ objects, to, want }) => {
    expect(await failureMessage(converterFor(crd()).convert(objects, to))).toBe(want);
  });
});

describe('strategy Webhook', () => {
  it('renames the field through the webhook, sending kube ConversionReview v1', async () => {
    const hook = await startWebhook(pki, converting);
    const obj = cache('v1', 'web-cache', 5);
    const before = structuredClone(obj);
    const [out] = await converterFor(webhookCRD({ url: hook.url, caBundle })).convert([obj], V2);

    expect(out).toEqual({ ...before, apiVersion: V2, spec: { engine: 'redis', replicas: 5 } });
    expect(obj).toEqual(before);
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]).toMatchObject({ method: 'POST', url: '/convert?timeout=30s' });
    expect(hook.requests[0]!.headers['content-type']).toBe('application/json');
    const review = hook.reviews[0]!;
    expect(review).toEqual({
      kind: 'ConversionReview',
      apiVersion: 'apiextensions.k8s.io/v1',
      request: { uid: expect.stringMatching(/^[0-9a-f-]{36}$/), desiredAPIVersion: V2, objects: [before] },
      response: { uid: '', convertedObjects: null, result: { metadata: {} } },
    });

    const [back] = await converterFor(webhookCRD({ url: hook.url, caBundle })).convert([out!], V1);
    expect(back).toEqual(before);
    expect(hook.reviews[1]!.request.uid).not.toBe(review.request.uid);
  });

  it('sends a list in one review, only the items not yet in the target version, and keeps the order', async () => {
    const hook = await startWebhook(pki, converting);
    const b = cache('v2', 'b', 2);
    const out = await converterFor(webhookCRD({ url: hook.url, caBundle })).convert(
      [cache('v1', 'a', 1), b, cache('v1', 'c', 3)],
      V2,
    );
    expect(hook.reviews).toHaveLength(1);
    expect(hook.reviews[0]!.request.objects.map((o) => o.metadata.name)).toEqual(['a', 'c']);
    expect(out.map((o) => [o.metadata.name, o.apiVersion, o['spec']])).toEqual([
      ['a', V2, { engine: 'redis', replicas: 1 }],
      ['b', V2, { engine: 'redis', replicas: 2 }],
      ['c', V2, { engine: 'redis', replicas: 3 }],
    ]);
    expect(out[1]).toBe(b);
  });

  it('does not call the webhook when nothing needs converting', async () => {
    const hook = await startWebhook(pki, converting);
    const converter = converterFor(webhookCRD({ url: hook.url, caBundle }));
    const a = cache('v2', 'a');
    expect(await converter.convert([a], V2)).toEqual([a]);
    expect(await converter.convert([a, cache('v2', 'b')], V2)).toHaveLength(2);
    expect(await converter.convert([], V2)).toEqual([]);
    // kube's empty-object special case (the cacher's smoke test): no call either.
    expect(await converter.convert([{ apiVersion: V1, kind: 'Cache' } as KubeObject], V2)).toEqual([
      { apiVersion: V2, kind: 'Cache' },
    ]);
    expect(hook.reviews).toHaveLength(0);
  });

  it('keeps the original metadata but takes labels and annotations from the webhook', async () => {
    const hook = await startWebhook(
      pki,
      spoiled((objs) => {
        for (const o of objs) {
          o.metadata.resourceVersion = '999';
          o.metadata.generation = 40;
          o.metadata.finalizers = ['sneaky'];
          o.metadata.labels = { app: 'web', converted: 'yes' };
          o.metadata.annotations = { 'example.com/converted-from': 'v1' };
        }
      }),
    );
    const [out] = await converterFor(webhookCRD({ url: hook.url, caBundle })).convert([cache('v1', 'web-cache')], V2);
    expect(out!.metadata).toEqual({
      name: 'web-cache',
      namespace: 'default',
      uid: 'uid-web-cache',
      resourceVersion: '7',
      generation: 2,
      labels: { app: 'web', converted: 'yes' },
      annotations: { 'example.com/converted-from': 'v1' },
    });
  });

  it('drops labels the webhook dropped (kube restores only what the webhook returned)', async () => {
    const hook = await startWebhook(
      pki,
      spoiled((objs) => {
        for (const o of objs) delete o.metadata.labels;
      }),
    );
    const [out] = await converterFor(webhookCRD({ url: hook.url, caBundle })).convert([cache('v1', 'a')], V2);
    expect(out!.metadata.labels).toBeUndefined();
  });

  it('speaks v1beta1 when that is the only review version accepted, without the uid check v1 has', async () => {
    const hook = await startWebhook(pki, (review) => ({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1beta1',
        kind: 'ConversionReview',
        response: {
          uid: 'not-the-request-uid',
          convertedObjects: review.request.objects.map((o) => convertCache(o, V2)),
          result: { status: 'Success' },
        },
      },
    }));
    const [out] = await converterFor(webhookCRD({ url: hook.url, caBundle }, ['v1beta1'])).convert(
      [cache('v1', 'a', 4)],
      V2,
    );
    expect(hook.reviews[0]!.apiVersion).toBe('apiextensions.k8s.io/v1beta1');
    expect(out!['spec']).toEqual({ engine: 'redis', replicas: 4 });
  });

  it('takes the first review version it knows, in the CRD order', async () => {
    const hook = await startWebhook(pki, converting);
    await converterFor(webhookCRD({ url: hook.url, caBundle }, ['v2', 'v1beta1', 'v1'])).convert(
      [cache('v1', 'a')],
      V2,
    );
    await converterFor(webhookCRD({ url: hook.url, caBundle }, ['v1', 'v1beta1'])).convert([cache('v1', 'a')], V2);
    expect(hook.reviews.map((r) => r.apiVersion)).toEqual(['apiextensions.k8s.io/v1beta1', 'apiextensions.k8s.io/v1']);
    expect(
      await failureMessage(
        converterFor(webhookCRD({ url: hook.url, caBundle }, ['v2'])).convert([cache('v1', 'a')], V2),
      ),
    ).toBe('no supported conversion review versions');
  });

  it('calls a service reference at https://<name>.<namespace>.svc:<port><path>, verified under that name', async () => {
    const hook = await startWebhook(pki, converting);
    const resolved: unknown[] = [];
    const opts: ConverterOptions = {
      serviceResolver: (svc) => {
        resolved.push(svc);
        return { host: '127.0.0.1', port: hook.port };
      },
    };
    const c = webhookCRD({ service: { namespace: 'webhooks', name: 'conv', path: '/convert', port: 8443 }, caBundle });
    const [out] = await converterFor(c, opts).convert([cache('v1', 'a', 2)], V2);
    expect(out!['spec']).toEqual({ engine: 'redis', replicas: 2 });
    expect(resolved).toEqual([{ namespace: 'webhooks', name: 'conv', port: 8443 }]);
    expect(hook.requests[0]!.headers.host).toBe('conv.webhooks.svc:8443');
  });

  it('formats the timeout as Go does', () => {
    expect([30_000, 300, 1500, 90_000, 3_600_000, 60_000].map(goDuration)).toEqual([
      '30s',
      '300ms',
      '1.5s',
      '1m30s',
      '1h0m0s',
      '1m0s',
    ]);
  });
});

describe('webhook failures', () => {
  const post = (hook: Hook, query = 'timeout=30s'): string => `Post "${hook.url}?${query}"`;

  it('gives kube’s 500 with its text, and the InternalError form for storage paths', async () => {
    const port = await closedPort();
    const err = await failure(
      converterFor(webhookCRD({ url: `https://127.0.0.1:${port}/convert`, caBundle })).convert([cache('v1', 'a')], V2),
    );
    const message = `${FOR_V1} failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: '',
      code: 500,
    });
    expect((err as ConversionError).asInternalError().status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: `Internal error occurred: ${message}`,
    });
  });

  it('reports the webhook down for a service reference too, with the URL kube shows', async () => {
    const port = await closedPort();
    const c = webhookCRD({ service: { namespace: 'webhooks', name: 'conv', path: '/convert', port: 443 }, caBundle });
    const down = converterFor(c, { serviceResolver: () => ({ host: '127.0.0.1', port }) });
    expect(await failureMessage(down.convert([cache('v1', 'a')], V2))).toBe(
      `${FOR_V1} failed: Post "https://conv.webhooks.svc:443/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    const missing = converterFor(c, {
      serviceResolver: () => {
        throw new Error('service "conv" not found');
      },
    });
    expect(await failureMessage(missing.convert([cache('v1', 'a')], V2))).toBe(
      `${FOR_V1} failed: Post "https://conv.webhooks.svc:443/convert?timeout=30s": service "conv" not found`,
    );
  });

  it('without a resolver, looks the service name up in DNS (which has no .svc names here)', async () => {
    const c = webhookCRD({ service: { namespace: 'webhooks', name: 'conv' }, caBundle });
    const message = await failureMessage(converterFor(c, { timeoutMs: 3000 }).convert([cache('v1', 'a')], V2));
    expect(message).toMatch(
      /^conversion webhook for cache\.example\.com\/v1, Kind=Cache failed: Post "https:\/\/conv\.webhooks\.svc:443\/\?timeout=3s": (dial tcp: lookup conv\.webhooks\.svc: .+|context deadline exceeded)$/,
    );
  });

  it('times out a webhook that never answers, and drops the connection', async () => {
    // The webhook never answers; the converter's 300 ms deadline ends the call with Go's text,
    // and the converter closes the connection while the webhook, if the review reached it, still
    // holds its answer.
    const unanswered: ServerResponse[] = [];
    const hook = await startWebhook(pki, () => (res) => void unanswered.push(res));
    const message = await failureMessage(
      converterFor(webhookCRD({ url: hook.url, caBundle }), { timeoutMs: 300 }).convert([cache('v1', 'a')], V2),
    );
    expect(message).toBe(`${FOR_V1} failed: ${post(hook, 'timeout=300ms')}: context deadline exceeded`);
    const socket = await hook.connection;
    if (!socket.closed) await once(socket, 'close');
    expect(unanswered.map((res) => res.headersSent)).not.toContain(true);
  });

  it('times out a server that never completes the TLS handshake', async () => {
    const sockets = new Set<Socket>();
    const server = createTcpServer((s) => sockets.add(s));
    track(server, sockets);
    const port = await listen(server);
    const message = await failureMessage(
      converterFor(webhookCRD({ url: `https://127.0.0.1:${port}`, caBundle }), { timeoutMs: 200 }).convert(
        [cache('v1', 'a')],
        V2,
      ),
    );
    expect(message).toBe(
      `${FOR_V1} failed: Post "https://127.0.0.1:${port}/?timeout=200ms": context deadline exceeded`,
    );
  });

  it('times out a body that never ends', async () => {
    const hook = await startWebhook(pki, () => (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"kind":');
    });
    const message = await failureMessage(
      converterFor(webhookCRD({ url: hook.url, caBundle }), { timeoutMs: 300 }).convert([cache('v1', 'a')], V2),
    );
    expect(message).toBe(
      `${FOR_V1} failed: unexpected error when reading response body. Please retry. Original error: context deadline exceeded`,
    );
  });

  it('refuses a certificate from another CA, before sending anything', async () => {
    const hook = await startWebhook(pki, converting);
    const wrong = converterFor(webhookCRD({ url: hook.url, caBundle: b64(otherPki.caCert) }));
    expect(await failureMessage(wrong.convert([cache('v1', 'a')], V2))).toBe(
      `${FOR_V1} failed: ${post(hook)}: tls: failed to verify certificate: x509: certificate signed by unknown authority` +
        ' (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "mini-apiserver-ca")',
    );
    // Without a caBundle the system roots are trusted, and they do not know our CA either.
    const system = converterFor(webhookCRD({ url: hook.url }));
    expect(await failureMessage(system.convert([cache('v1', 'a')], V2))).toBe(
      `${FOR_V1} failed: ${post(hook)}: tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
    expect(hook.reviews).toHaveLength(0);
  });

  it('refuses a certificate for other names', async () => {
    const ca = await generateCa();
    const dnsOnly = await issueServingCert(ca, { ips: [], dns: ['webhook.example.com'] });
    const hook = await startWebhook(dnsOnly, converting);
    const bundle = b64(ca.cert);
    expect(
      await failureMessage(
        converterFor(webhookCRD({ url: hook.url, caBundle: bundle })).convert([cache('v1', 'a')], V2),
      ),
    ).toBe(
      `${FOR_V1} failed: ${post(hook)}: tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs`,
    );
    const byName = `https://localhost:${hook.port}/convert`;
    expect(
      await failureMessage(converterFor(webhookCRD({ url: byName, caBundle: bundle })).convert([cache('v1', 'a')], V2)),
    ).toBe(
      `${FOR_V1} failed: Post "${byName}?timeout=30s": tls: failed to verify certificate: x509: certificate is valid for webhook.example.com, not localhost`,
    );
    expect(hook.reviews).toHaveLength(0);
  });

  it('fails with 500 InternalError "error resolving resource" for a caBundle kube cannot load', async () => {
    const err = await failure(
      converterFor(webhookCRD({ url: 'https://127.0.0.1:1/convert', caBundle: b64('not a certificate') })).convert(
        [cache('v1', 'a')],
        V2,
      ),
    );
    expect(err.status).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: error resolving resource',
    });
  });

  it('reports a peer that hangs up, and one that speaks plain HTTP', async () => {
    const hook = await startWebhook(pki, () => 'destroy');
    expect(
      await failureMessage(converterFor(webhookCRD({ url: hook.url, caBundle })).convert([cache('v1', 'a')], V2)),
    ).toBe(`${FOR_V1} failed: ${post(hook)}: EOF`);

    const plain = createHttpServer((_req, res) => res.end('hello'));
    track(plain);
    const port = await listen(plain);
    expect(
      await failureMessage(
        converterFor(webhookCRD({ url: `https://127.0.0.1:${port}/convert`, caBundle })).convert(
          [cache('v1', 'a')],
          V2,
        ),
      ),
    ).toBe(
      `${FOR_V1} failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": http: server gave HTTP response to HTTPS client`,
    );
  });

  it('reports a body cut short', async () => {
    const hook = await startWebhook(pki, () => (res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '500' });
      res.write('{"kind":"ConversionReview"', () => res.socket?.destroy());
    });
    expect(
      await failureMessage(converterFor(webhookCRD({ url: hook.url, caBundle })).convert([cache('v1', 'a')], V2)),
    ).toBe(
      `${FOR_V1} failed: unexpected error when reading response body. Please retry. Original error: unexpected EOF`,
    );
  });

  const responseCases: { name: string; reply: (review: Review) => Reply; want: (review: Review) => string }[] = [
    {
      name: '500 with text',
      reply: () => ({ status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: 'boom\n' }),
      want: () => `${FOR_V1} failed: an error on the server ("boom") has prevented the request from succeeding`,
    },
    {
      name: '500 with JSON that is not a Status',
      reply: () => ({ status: 500, body: { error: 'boom' } }),
      want: () => `${FOR_V1} failed: an error on the server ("unknown") has prevented the request from succeeding`,
    },
    {
      name: '404',
      reply: () => ({ status: 404, body: '404 page not found' }),
      want: () => `${FOR_V1} failed: the server could not find the requested resource`,
    },
    {
      name: '302',
      reply: () => ({ status: 302, headers: { Location: '/elsewhere' } }),
      want: () => `${FOR_V1} failed: the server responded with the status code 302 but did not return more information`,
    },
    {
      name: 'a Status',
      reply: () => ({
        status: 503,
        body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'webhook is shutting down', code: 503 },
      }),
      want: () => `${FOR_V1} failed: webhook is shutting down`,
    },
    {
      name: 'an empty 200',
      reply: () => ({ body: '' }),
      want: () => `${FOR_V1} failed: 0-length response with status code: 200 and content type: application/json`,
    },
    {
      name: 'truncated JSON',
      reply: () => ({ body: '{"kind":' }),
      want: () => `${FOR_V1} failed: couldn't get version/kind; json parse error: unexpected end of JSON input`,
    },
    {
      name: 'a JSON array',
      reply: () => ({ body: [] }),
      want: () =>
        `${FOR_V1} failed: couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    },
    {
      name: 'no apiVersion and kind',
      reply: (r) => ({
        body: { response: { uid: r.request.uid, convertedObjects: [], result: { status: 'Success' } } },
      }),
      want: () =>
        `${FOR_V1} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind=`,
    },
    {
      name: 'a v1beta1 answer to a v1 review',
      reply: (r) => ({
        body: {
          apiVersion: 'apiextensions.k8s.io/v1beta1',
          kind: 'ConversionReview',
          response: { uid: r.request.uid },
        },
      }),
      want: () =>
        `${FOR_V1} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`,
    },
    {
      name: 'no response',
      reply: () => ({ body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' } }),
      want: () => `${FOR_V1} failed: no response provided`,
    },
    {
      name: 'a response of the wrong type',
      reply: () => ({ body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: 'ok' } }),
      want: () =>
        `${FOR_V1} failed: json: cannot unmarshal string into Go struct field ConversionReview.response of type v1.ConversionResponse`,
    },
    {
      name: 'the wrong uid',
      reply: (r) =>
        answer(
          { ...r, request: { ...r.request, uid: 'nope' } },
          r.request.objects.map((o) => convertCache(o, V2)),
        ),
      want: (r) => `${FOR_V1} failed: expected response.uid="${r.request.uid}", got "nope"`,
    },
    {
      name: 'a failure result with a message',
      reply: (r) => ({
        body: {
          apiVersion: r.apiVersion,
          kind: 'ConversionReview',
          response: { uid: r.request.uid, result: { status: 'Failure', message: 'spec.size is missing' } },
        },
      }),
      want: () => `${FOR_V1} failed: spec.size is missing`,
    },
    {
      name: 'a failure result without one',
      reply: (r) => ({
        body: { apiVersion: r.apiVersion, kind: 'ConversionReview', response: { uid: r.request.uid, result: {} } },
      }),
      want: () => `${FOR_V1} failed: response.result.status was '', not 'Success'`,
    },
    { name: 'no objects', reply: spoiled(() => []), want: () => `${FOR_V1} returned 0 objects, expected 1` },
    {
      name: 'too many objects',
      reply: spoiled((objs) => [...objs, ...objs]),
      want: () => `${FOR_V1} returned 2 objects, expected 1`,
    },
    {
      name: 'a changed name',
      reply: spoiled((objs) => void (objs[0]!.metadata.name = 'renamed')),
      want: () => `${FOR_V1} returned invalid object: must have the same name: a != renamed`,
    },
    {
      name: 'a changed namespace',
      reply: spoiled((objs) => void (objs[0]!.metadata.namespace = 'kube-system')),
      want: () => `${FOR_V1} returned invalid object: must have the same namespace: default != kube-system`,
    },
    {
      name: 'a changed uid',
      reply: spoiled((objs) => void (objs[0]!.metadata.uid = 'other')),
      want: () => `${FOR_V1} returned invalid object: must have the same UID: uid-a != other`,
    },
    {
      name: 'the wrong apiVersion',
      reply: spoiled((objs) => void (objs[0]!.apiVersion = V1)),
      want: () => `${FOR_V1} returned invalid object at index 0: invalid groupVersion (expected ${V2}, received ${V1})`,
    },
    {
      name: 'the wrong kind',
      reply: spoiled((objs) => void (objs[0]!.kind = 'Cash')),
      want: () => `${FOR_V1} returned invalid object at index 0: invalid kind (expected Cache, received Cash)`,
    },
    {
      name: 'an object without kind (kube does not prefix this one)',
      reply: spoiled(() => [{ apiVersion: V2, metadata: { name: 'a' } }]),
      want: () => `Object 'Kind' is missing in '{"apiVersion":"${V2}","metadata":{"name":"a"}}'`,
    },
    {
      name: 'no metadata',
      reply: spoiled((objs) => [{ ...objs[0], metadata: undefined }]),
      want: () => `${FOR_V1} returned invalid object: must have the same name: a != `,
    },
    {
      name: 'an invalid label',
      reply: spoiled((objs) => void (objs[0]!.metadata.labels = { app: 'bad value!' })),
      want: () =>
        `${FOR_V1} returned invalid metadata: metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    },
    {
      name: 'a label that is not a string',
      reply: spoiled((objs) => [{ ...objs[0], metadata: { ...objs[0]!.metadata, labels: { app: 3 } } }]),
      want: () =>
        `${FOR_V1} returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object`,
    },
  ];

  it.each(responseCases)('rejects $name', async ({ reply, want }) => {
    const hook = await startWebhook(pki, reply);
    const message = await failureMessage(
      converterFor(webhookCRD({ url: hook.url, caBundle })).convert([cache('v1', 'a')], V2),
    );
    expect(message).toBe(want(hook.reviews[0]!));
  });

  it('words list failures as kube does, with the list kind and the index among converted objects', async () => {
    const items = (): KubeObject[] => [cache('v2', 'x'), cache('v1', 'a'), cache('v1', 'b')];
    const run = async (reply: (review: Review) => Reply): Promise<string> => {
      const hook = await startWebhook(pki, reply);
      return failureMessage(converterFor(webhookCRD({ url: hook.url, caBundle })).convert(items(), V2));
    };
    expect(await run(spoiled((objs) => void (objs[1]!.metadata.uid = 'other')))).toBe(
      `${FOR_LIST} returned invalid converted object at index 1: must have the same UID: uid-b != other`,
    );
    expect(await run(spoiled((objs) => void (objs[0]!.apiVersion = V1)))).toBe(
      `${FOR_LIST} returned invalid converted object at index 0: invalid groupVersion (expected ${V2}, received ${V1})`,
    );
    expect(await run(spoiled((objs) => void (objs[1]!.kind = 'Cash')))).toBe(
      `${FOR_LIST} returned invalid converted object at index 1: invalid kind (expected Cache, received Cash)`,
    );
    expect(await run(spoiled((objs) => [objs[0], 'b']))).toBe(
      `${FOR_LIST} returned invalid converted object at index 1: json: cannot unmarshal string into Go value of type map[string]interface {}`,
    );
    expect(await run(spoiled((objs) => void (objs[1]!.metadata.annotations = { 'bad key!': 'x' })))).toMatch(
      /^conversion webhook for cache\.example\.com\/v2, Kind=CacheList returned invalid metadata in object at index 1: metadata\.annotation: Invalid value: "bad key!": name part must consist of/,
    );
    expect(await run(spoiled((objs) => objs.slice(1)))).toBe(`${FOR_LIST} returned 1 objects, expected 2`);
    expect(await run(() => 'destroy')).toMatch(
      /^conversion webhook for cache\.example\.com\/v2, Kind=CacheList failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert\?timeout=30s": EOF$/,
    );
  });

  it('uses list wording for a single object when asked to', async () => {
    const hook = await startWebhook(
      pki,
      spoiled(() => []),
    );
    const message = await failureMessage(
      converterFor(webhookCRD({ url: hook.url, caBundle })).convert([cache('v1', 'a')], V2, { list: true }),
    );
    expect(message).toBe(`${FOR_LIST} returned 0 objects, expected 1`);
  });

  it('never leaves a call unanswered: many concurrent conversions against a dead webhook all fail at the dial', async () => {
    // Failing fast means failing on the refused connection, not waiting out the 2 s deadline.
    const port = await closedPort();
    const converter = converterFor(webhookCRD({ url: `https://127.0.0.1:${port}/convert`, caBundle }), {
      timeoutMs: 2000,
    });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => converter.convert([cache('v1', `c${i}`)], V2)),
    );
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof ConversionError)).toBe(true);
    expect(new Set(results.map((r) => (r as PromiseRejectedResult).reason.message))).toEqual(
      new Set([
        `${FOR_V1} failed: Post "https://127.0.0.1:${port}/convert?timeout=2s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
      ]),
    );
  });
});
