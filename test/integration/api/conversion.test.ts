// A two-version CRD whose versions are converted by a webhook the test serves over HTTPS (v1
// spec.size is v2 spec.replicas), through the server: writes in either version, reads in either,
// and what still works while the webhook is down.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePki } from '../../../server/pki.js';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { eventually } from '../../helpers/eventually.js';
import { type WatchEvent, openWatch } from '../../helpers/watch-stream.js';

type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec?: Record<string, unknown> };

/** v1 `spec.size` <-> v2 `spec.replicas`. */
function convertObject(obj: Obj, to: string): Obj {
  const spec = { ...obj.spec };
  if (to.endsWith('/v2') && 'size' in spec) {
    spec['replicas'] = spec['size'];
    delete spec['size'];
  } else if (to.endsWith('/v1') && 'replicas' in spec) {
    spec['size'] = spec['replicas'];
    delete spec['replicas'];
  }
  return { ...obj, apiVersion: to, spec };
}

let webhook: Server;
let ca = '';
let url = '';
let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const base = (v: string, name = '') => `/apis/conv.example.com/${v}/namespaces/default/caches${name ? `/${name}` : ''}`;
const schema = (field: string) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', properties: { [field]: { type: 'integer' } } } },
  },
});

beforeAll(async () => {
  const pki = await generatePki({ ips: ['127.0.0.1'], dns: ['localhost'] });
  ca = pki.caCert;
  webhook = createServer({ cert: pki.cert, key: pki.key }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const review = JSON.parse(body) as { request: { uid: string; desiredAPIVersion: string; objects: Obj[] } };
      const { uid, desiredAPIVersion, objects } = review.request;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          response: {
            uid,
            result: { status: 'Success' },
            convertedObjects: objects.map((o) => convertObject(o, desiredAPIVersion)),
          },
        }),
      );
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/convert`;

  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'caches.conv.example.com' },
    spec: {
      group: 'conv.example.com',
      scope: 'Namespaced',
      names: { plural: 'caches', singular: 'cache', kind: 'Cache' },
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { url, caBundle: Buffer.from(ca).toString('base64') },
        },
      },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema('size') },
        { name: 'v2', served: true, storage: false, schema: schema('replicas') },
      ],
    },
  };
  expect((await call('POST', CRDS, { body: crd })).status).toBe(201);
  await eventually('both versions', async () =>
    (await call('GET', base('v1'))).status === 200 && (await call('GET', base('v2'))).status === 200 ? true : undefined,
  );
});
afterAll(async () => {
  await server?.close();
  webhook?.close();
});

describe('conversion by webhook', () => {
  it('converts writes to the storage version and reads to the version asked for', async () => {
    const created = await call('POST', base('v2'), {
      body: { apiVersion: 'conv.example.com/v2', kind: 'Cache', metadata: { name: 'a' }, spec: { replicas: 4 } },
    });
    expect([created.status, (created.json as Obj).spec]).toEqual([201, { replicas: 4 }]);
    expect((await call('GET', base('v1', 'a'))).json).toMatchObject({
      apiVersion: 'conv.example.com/v1',
      spec: { size: 4 },
    });
    expect((await call('GET', base('v2', 'a'))).json).toMatchObject({
      apiVersion: 'conv.example.com/v2',
      spec: { replicas: 4 },
    });
    const patched = await call('PATCH', base('v2', 'a'), {
      body: { spec: { replicas: 6 } },
      contentType: 'application/merge-patch+json',
    });
    expect([patched.status, (patched.json as Obj).spec]).toEqual([200, { replicas: 6 }]);
    const listed = (await call('GET', base('v2'))).json as { items: Obj[] };
    expect(listed.items.map((i) => i.spec)).toEqual([{ replicas: 6 }]);
  });

  it('converts watch events too, in order', async () => {
    const w = await openWatch<WatchEvent<Obj>>(server, `${base('v2')}?watch=true&resourceVersion=0`);
    const events = w.events;
    await eventually('the initial event', async () => (events.length >= 1 ? true : undefined));
    await call('POST', base('v1'), {
      body: { apiVersion: 'conv.example.com/v1', kind: 'Cache', metadata: { name: 'b' }, spec: { size: 2 } },
    });
    await call('PATCH', base('v1', 'b'), { body: { spec: { size: 3 } }, contentType: 'application/merge-patch+json' });
    await eventually('three events', async () => (events.length >= 3 ? true : undefined));
    w.close();
    expect(events.map((e) => [e.type, e.object.metadata['name'], e.object.apiVersion, e.object.spec])).toEqual([
      ['ADDED', 'a', 'conv.example.com/v2', { replicas: 6 }],
      ['ADDED', 'b', 'conv.example.com/v2', { replicas: 2 }],
      ['MODIFIED', 'b', 'conv.example.com/v2', { replicas: 3 }],
    ]);
  });

  it('while the webhook is down: a clear error for this kind, everything else unaffected, the CRD still deletable', async () => {
    await new Promise<void>((r) => webhook.close(() => r()));
    webhook.closeAllConnections();
    const failed = await call('GET', base('v2', 'a'));
    expect(failed.status).toBe(500);
    expect((failed.json as { message: string }).message).toMatch(
      /^conversion webhook for conv\.example\.com\/v1, Kind=Cache failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert\?timeout=30s": dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/,
    );
    // Reading in the storage version needs no webhook; other kinds do not notice.
    expect((await call('GET', base('v1', 'a'))).status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces')).status).toBe(200);
    expect((await call('DELETE', `${CRDS}/caches.conv.example.com`)).status).toBe(200);
    await eventually('the CRD to go', async () =>
      (await call('GET', `${CRDS}/caches.conv.example.com`)).status === 404 ? true : undefined,
    );
  });
});
