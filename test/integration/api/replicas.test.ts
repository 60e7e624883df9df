// Two servers on one real etcd are one API: a CRD created through one is served by the other, a
// write through one reaches watchers on both with the same resourceVersion, and watches survive
// an etcd restart without losing or repeating events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';
import { type WatchStream, openWatch } from '../../helpers/watch-stream.js';

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
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const BASE = `/apis/${GROUP}/v1/namespaces/default/things`;
const thing = (name: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name } });

async function call(
  server: ServerHandle,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const r = await apiClient(server)(method, path, { body });
  return { status: r.status, json: (r.json ?? {}) as Record<string, unknown> };
}

const watch = (server: ServerHandle, query: string): Promise<WatchStream<Event>> =>
  openWatch<Event>(server, `${BASE}?watch=true&${query}`);

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

  it('serves a CRD created through one server on the other, from its watch of etcd', async () => {
    // What "within 2 s" stood for: the other server learns of the CRD from its watch on etcd (no
    // polling, no restart). Its CRD watch, opened before the create, carries the create at the
    // revision the first server answered; then it serves the resource.
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const listed = await call(b, 'GET', crds);
    const from = (listed.json['metadata'] as { resourceVersion: string }).resourceVersion;
    const onB = await openWatch<Event>(b, `${crds}?watch=true&resourceVersion=${from}`);
    const created = await call(a, 'POST', crds, CRD);
    expect(created.status).toBe(201);
    const [added] = await onB.next(1);
    onB.close();
    expect([added!.type, added!.object.metadata.name, added!.object.metadata.resourceVersion]).toEqual([
      'ADDED',
      CRD.metadata.name,
      (created.json['metadata'] as { resourceVersion: string }).resourceVersion,
    ]);
    await eventually('the CRD on the other server', async () =>
      (await call(b, 'GET', BASE)).status === 200 ? true : undefined,
    );
  });

  it('delivers a write through one server to watchers on both, with one resourceVersion', async () => {
    const onA = await watch(a, 'resourceVersion=0');
    const onB = await watch(b, 'resourceVersion=0');
    await new Promise((r) => setTimeout(r, 200));
    const created = await call(b, 'POST', BASE, thing('shared'));
    expect(created.status).toBe(201);
    const rv = (created.json['metadata'] as { resourceVersion: string }).resourceVersion;
    for (const w of [onA, onB]) {
      const ev = await eventually('the ADDED event', async () =>
        w.events.find((e) => e.object.metadata.name === 'shared'),
      );
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
    const w = await watch(a, `resourceVersion=${rv}`);
    await call(b, 'POST', BASE, thing('before-restart'));
    await eventually('the event before the restart', async () => (w.events.length === 1 ? true : undefined));
    await etcd.restart();
    // While etcd comes back a write may fail outright: that is a "not yet".
    await eventually('a write after the restart', async () =>
      (await call(b, 'POST', BASE, thing('after-restart')).catch(() => undefined))?.status === 201 ? true : undefined,
    );
    await eventually('the event after the restart', async () => (w.events.length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(w.events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual([
      'ADDED before-restart',
      'ADDED after-restart',
    ]);
    w.close();
  });
});
