// Two servers on one real etcd are one API: a CRD created through one is served by the other, a
// write through one reaches watchers on both with the same resourceVersion, and watches survive
// an etcd restart without losing or repeating events.
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';

interface Event {
  type: string;
  object: { metadata: { name: string; resourceVersion: string } };
}

const GROUP = 'replica.example.com';
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `things.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'things', singular: 'thing', kind: 'Thing' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const BASE = `/apis/${GROUP}/v1/namespaces/default/things`;
const thing = (name: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name } });

function call(server: ServerHandle, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpsRequest(server.url + path, {
      method,
      ca: server.caCert,
      agent: false,
      headers: { authorization: `Bearer ${server.token}`, ...(text ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}) },
    });
    req.on('response', (res) => {
      let data = '';
      res.on('data', (c: Buffer) => (data += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: data ? (JSON.parse(data) as Record<string, unknown>) : {} }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

function watch(server: ServerHandle, query: string): { events: Event[]; close(): void } {
  const events: Event[] = [];
  let buffered = '';
  const req = httpsRequest(`${server.url}${BASE}?watch=true&${query}`, { ca: server.caCert, agent: false, headers: { authorization: `Bearer ${server.token}` } });
  req.on('response', (res) =>
    res.on('data', (c: Buffer) => {
      buffered += c.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffered.slice(0, nl)) as Event);
        buffered = buffered.slice(nl + 1);
      }
    }),
  );
  req.on('error', () => {});
  req.end();
  return { events, close: () => req.destroy() };
}


describe('two servers on one etcd', () => {
  let etcd: EtcdProcess;
  let a: ServerHandle;
  let b: ServerHandle;

  beforeAll(async () => {
    etcd = await startEtcd();
    const options = { storage: 'etcd' as const, etcdServers: [etcd.endpoint], compactionIntervalMs: 0 };
    [a, b] = await Promise.all([startServer(options), startServer(options)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await etcd?.destroy();
  });

  it('serves a CRD created through one server on the other within 2 s', async () => {
    expect((await call(a, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status).toBe(201);
    const started = Date.now();
    await eventually('the CRD on the other server', async () => ((await call(b, 'GET', BASE)).status === 200 ? true : undefined), 2000);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('delivers a write through one server to watchers on both, with one resourceVersion', async () => {
    const onA = watch(a, 'resourceVersion=0');
    const onB = watch(b, 'resourceVersion=0');
    await new Promise((r) => setTimeout(r, 200));
    const created = await call(b, 'POST', BASE, thing('shared'));
    expect(created.status).toBe(201);
    const rv = (created.json['metadata'] as { resourceVersion: string }).resourceVersion;
    for (const w of [onA, onB]) {
      const ev = await eventually('the ADDED event', async () => w.events.find((e) => e.object.metadata.name === 'shared'));
      expect([ev.type, ev.object.metadata.resourceVersion]).toEqual(['ADDED', rv]);
    }
    const fromA = await call(a, 'GET', `${BASE}/shared`);
    expect((fromA.json['metadata'] as { resourceVersion: string }).resourceVersion).toBe(rv);
    onA.close();
    onB.close();
  });

  it('keeps watches going across an etcd restart: nothing lost, nothing twice', async () => {
    const listed = await call(a, 'GET', BASE);
    const rv = (listed.json['metadata'] as { resourceVersion: string }).resourceVersion;
    const w = watch(a, `resourceVersion=${rv}`);
    await call(b, 'POST', BASE, thing('before-restart'));
    await eventually('the event before the restart', async () => (w.events.length === 1 ? true : undefined));
    await etcd.restart();
    // While etcd comes back a write may fail outright: that is a "not yet".
    await eventually('a write after the restart', async () => ((await call(b, 'POST', BASE, thing('after-restart')).catch(() => undefined))?.status === 201 ? true : undefined));
    await eventually('the event after the restart', async () => (w.events.length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(w.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED before-restart', 'ADDED after-restart']);
    w.close();
  });
});
