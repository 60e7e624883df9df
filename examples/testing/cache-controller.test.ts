// The Cache controller (cache-controller.ts) against what a real API server does on a bad day,
// made to happen on cue with mini-apiserver's testing API: a storm of 409s on its status writes,
// a watch dropped under it, a 410 when it resumes, and a create that commits but answers 504 (the
// ambiguous outcome that makes controllers create twice). Between tests a Snapshot puts the
// server back as it was, in milliseconds, so each test starts from the same state.
//
// The server is the library, in this process; the controller talks to it over HTTPS with
// client-node, as it would to any cluster. A Go controller does the same against the binary
// (`mini-apiserver --enable-testing-apis`, see the README).
import * as k8s from '@kubernetes/client-node';
import { type ServerHandle, type TestingClient, startServer } from 'mini-apiserver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Cache, CacheController } from './cache-controller.js';

const NAMESPACE = 'default';

let server: ServerHandle;
let testing: TestingClient;
let kc: k8s.KubeConfig;
let controller: CacheController;

beforeAll(async () => {
  // Resolves once the CRD is Established.
  server = await startServer({
    testing: true,
    crds: [new URL('../cache-crd.yaml', import.meta.url).pathname],
  });
  testing = server.testing!;
  kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  controller = new CacheController(kc, NAMESPACE);
  await controller.start();
  // Every test starts from this: the CRD, no Caches, no ConfigMaps of the controller's.
  await testing.snapshots.save('clean');
});

afterEach(async () => {
  await testing.faults.clear();
  await testing.snapshots.restore('clean');
});

afterAll(async () => {
  await controller?.stop();
  await server?.close();
});

const caches = () => kc.makeApiClient(k8s.CustomObjectsApi);
const core = () => kc.makeApiClient(k8s.CoreV1Api);

async function createCache(name: string, size: number): Promise<void> {
  await caches().createNamespacedCustomObject({
    group: 'cache.example.com',
    version: 'v1',
    namespace: NAMESPACE,
    plural: 'caches',
    body: { apiVersion: 'cache.example.com/v1', kind: 'Cache', metadata: { name }, spec: { size } },
  });
}

async function getCache(name: string): Promise<Cache> {
  return (await caches().getNamespacedCustomObject({
    group: 'cache.example.com',
    version: 'v1',
    namespace: NAMESPACE,
    plural: 'caches',
    name,
  })) as Cache;
}

/** Until the Cache's status says it is ready at `size`. */
async function ready(name: string, size: number): Promise<Cache> {
  for (;;) {
    const cache = await getCache(name);
    if (cache.status?.readyReplicas === size) return cache;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the Cache controller', () => {
  it('starts from a clean server every time (the Snapshot restored after each test)', async () => {
    const list = (await caches().listNamespacedCustomObject({
      group: 'cache.example.com',
      version: 'v1',
      namespace: NAMESPACE,
      plural: 'caches',
    })) as { items: Cache[] };
    expect(list.items).toEqual([]);
    await createCache('sessions', 3);
    await ready('sessions', 3);
  });

  it('gets its status written through a storm of 409s', async () => {
    // `await using`: the Fault is deleted when the test ends, however it ends.
    await using storm = await testing.faults.inject('status-conflicts', {
      match: { verbs: ['patch', 'update'], resources: ['caches/status'] },
      count: 5,
      action: { error: { code: 409 } },
    });
    await createCache('sessions', 3);
    await ready('sessions', 3);
    expect(await storm.hits()).toBe(5);
    expect(controller.retries).toBeGreaterThanOrEqual(5);
  });

  it('keeps up through a dropped watch', async () => {
    await createCache('pages', 1);
    await ready('pages', 1);
    await testing.faults.inject('drop', {
      match: { verbs: ['watch'], resources: ['caches'] },
      count: 1,
      action: { endWatch: { afterEvents: 0 } },
    });
    await caches().patchNamespacedCustomObject(
      {
        group: 'cache.example.com',
        version: 'v1',
        namespace: NAMESPACE,
        plural: 'caches',
        name: 'pages',
        body: { spec: { size: 4 } },
      },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await ready('pages', 4);
    expect(await testing.faults.hits('drop')).toBe(1);
  });

  it('lists again when its resume gets 410 Gone, and misses nothing', async () => {
    await createCache('pages', 1);
    await ready('pages', 1);
    // The resume after the drop finds history expired: the informer has to list again.
    await testing.faults.inject('a-expire', {
      match: { verbs: ['watch'], resources: ['caches'] },
      count: 1,
      action: { expireHistory: {} },
    });
    await testing.faults.inject('b-drop', {
      match: { verbs: ['watch'], resources: ['caches'] },
      count: 1,
      action: { endWatch: { afterEvents: 0 } },
    });
    await createCache('tiny', 2);
    await ready('tiny', 2);
    expect(await testing.faults.hits('a-expire')).toBe(1);
    expect(
      controller
        .cached()
        .map((c) => c.metadata?.name)
        .sort(),
    ).toEqual(['pages', 'tiny']);
  });

  it('makes its ConfigMap once when the create commits but answers 504', async () => {
    await testing.faults.inject('ambiguous-create', {
      match: { verbs: ['create'], resources: ['configmaps'] },
      count: 1,
      action: { errorAfterCommit: { code: 504 } },
    });
    await createCache('sessions', 2);
    await ready('sessions', 2);
    const configMaps = await core().listNamespacedConfigMap({ namespace: NAMESPACE });
    expect(configMaps.items.filter((c) => c.metadata?.name === 'sessions-cache')).toHaveLength(1);
    expect(await testing.faults.hits('ambiguous-create')).toBe(1);
  });
});
