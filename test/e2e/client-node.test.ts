// @kubernetes/client-node, the JavaScript client controllers are written with, against a server
// started in-process with the library entry point (the way controller tests would use it).
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../server/index.js';

const group = 'cache.example.com';
const version = 'v1';
const plural = 'caches';
const namespace = 'default';

interface Cache {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    resourceVersion?: string;
    generation?: number;
    uid?: string;
    labels?: Record<string, string>;
  };
  spec: { size: number };
}

const cache = (name: string, size: number): Cache => ({
  apiVersion: `${group}/${version}`,
  kind: 'Cache',
  metadata: { name },
  spec: { size },
});

/** The Status a failed call carried, as client-node surfaces it. */
async function failure(call: Promise<unknown>): Promise<{ code: number; body: { reason: string; message: string } }> {
  try {
    await call;
  } catch (err) {
    if (err instanceof k8s.ApiException)
      return { code: err.code, body: JSON.parse(err.body as string) as { reason: string; message: string } };
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('@kubernetes/client-node CustomObjectsApi', () => {
  let server: ServerHandle;
  let api: k8s.CustomObjectsApi;

  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig);
    api = kc.makeApiClient(k8s.CustomObjectsApi);
    const crds = kc.makeApiClient(k8s.ApiextensionsV1Api);
    await crds.createCustomResourceDefinition({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${plural}.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural, singular: 'cache', kind: 'Cache' },
          versions: [
            {
              name: version,
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
                },
              },
            },
          ],
        },
      },
    });
    // Served once Established; until then the group is unknown.
    for (let i = 0; ; i++) {
      const crd = await crds.readCustomResourceDefinition({ name: `${plural}.${group}` });
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (i > 100) throw new Error('the CRD did not become Established');
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates, gets and lists', async () => {
    const created = (await api.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: cache('a', 1),
    })) as Cache;
    expect(created.metadata).toMatchObject({ name: 'a', generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    await api.createNamespacedCustomObject({ group, version, namespace, plural, body: cache('b', 2) });

    const got = (await api.getNamespacedCustomObject({ group, version, namespace, plural, name: 'a' })) as Cache;
    expect(got).toEqual(created);

    const list = (await api.listNamespacedCustomObject({ group, version, namespace, plural })) as {
      kind: string;
      items: Cache[];
      metadata: { resourceVersion: string };
    };
    expect(list.kind).toBe('CacheList');
    expect(list.items.map((c) => [c.metadata.name, c.spec.size])).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(created.metadata.resourceVersion));
  });

  it('replaces with optimistic concurrency: a stale resourceVersion is a 409', async () => {
    const current = (await api.getNamespacedCustomObject({ group, version, namespace, plural, name: 'a' })) as Cache;
    const replaced = (await api.replaceNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'a',
      body: { ...current, spec: { size: 10 } },
    })) as Cache;
    expect(replaced.spec.size).toBe(10);
    expect(replaced.metadata.generation).toBe(2);

    const stale = await failure(
      api.replaceNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        name: 'a',
        body: { ...current, spec: { size: 11 } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.body).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on caches.cache.example.com "a": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('patches: JSON patch by default, merge patch when asked', async () => {
    const jsonPatched = (await api.patchNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'b',
      body: [{ op: 'replace', path: '/spec/size', value: 20 }],
    })) as Cache;
    expect(jsonPatched.spec.size).toBe(20);

    const merged = (await api.patchNamespacedCustomObject(
      { group, version, namespace, plural, name: 'b', body: { metadata: { labels: { tier: 'web' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as Cache;
    expect(merged.metadata.labels).toEqual({ tier: 'web' });
    expect(merged.spec.size).toBe(20);

    const strategic = await failure(
      api.patchNamespacedCustomObject(
        { group, version, namespace, plural, name: 'b', body: { spec: { size: 1 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(strategic.code).toBe(415);
  });

  it('deletes, and the object is gone', async () => {
    await api.deleteNamespacedCustomObject({ group, version, namespace, plural, name: 'a' });
    const gone = await failure(api.getNamespacedCustomObject({ group, version, namespace, plural, name: 'a' }));
    expect(gone.code).toBe(404);
    expect(gone.body.message).toBe('caches.cache.example.com "a" not found');
    const list = (await api.listNamespacedCustomObject({ group, version, namespace, plural })) as { items: Cache[] };
    expect(list.items.map((c) => c.metadata.name)).toEqual(['b']);
  });

  it('an informer converges its cache while objects are created, replaced and deleted', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig);
    const path = `/apis/${group}/${version}/namespaces/${namespace}/${plural}`;
    const informer = k8s.makeInformer<Cache & k8s.KubernetesObject>(
      kc,
      path,
      async () =>
        (await api.listNamespacedCustomObject({ group, version, namespace, plural })) as k8s.KubernetesListObject<
          Cache & k8s.KubernetesObject
        >,
    );
    const seen: string[] = [];
    informer.on(k8s.ADD, (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on(k8s.UPDATE, (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on(k8s.DELETE, (o) => seen.push(`delete ${o.metadata?.name}`));
    await informer.start();
    try {
      for (const name of ['i1', 'i2', 'i3'])
        await api.createNamespacedCustomObject({ group, version, namespace, plural, body: cache(name, 1) });
      const i2 = (await api.getNamespacedCustomObject({ group, version, namespace, plural, name: 'i2' })) as Cache;
      await api.replaceNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        name: 'i2',
        body: { ...i2, spec: { size: 7 } },
      });
      await api.deleteNamespacedCustomObject({ group, version, namespace, plural, name: 'i3' });

      const want = [
        ['b', 20],
        ['i1', 1],
        ['i2', 7],
      ];
      const deadline = Date.now() + 10_000;
      const state = (): Array<[string, number]> =>
        informer
          .list(namespace)
          .map((o): [string, number] => [o.metadata!.name!, (o as unknown as Cache).spec.size])
          .sort(([a], [b]) => a.localeCompare(b));
      while (JSON.stringify(state()) !== JSON.stringify(want)) {
        if (Date.now() > deadline)
          throw new Error(`informer cache ${JSON.stringify(state())}, want ${JSON.stringify(want)}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(seen).toEqual(expect.arrayContaining(['add i1', 'add i2', 'add i3', 'update i2', 'delete i3']));
    } finally {
      await informer.stop();
    }
  });
});
