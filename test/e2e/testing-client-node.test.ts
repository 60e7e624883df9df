// @kubernetes/client-node's informer, the cache controllers in JavaScript are built on, against a
// server started with the library's testing API: a watch the server ends is resumed from where it
// was (no list), and a resume that gets 410 lists again; either way its cache ends up as the
// server's objects.
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, startServer } from '../../server/index.js';
import { apiClient } from '../helpers/api-client.js';
import { eventually } from '../helpers/eventually.js';

const CACHES = '/apis/cache.example.com/v1/namespaces/default/caches';

interface Cache extends k8s.KubernetesObject {
  spec: { size: number };
}

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;
let informer: k8s.Informer<Cache> & k8s.ObjectCache<Cache>;
const seen: string[] = [];

/**
 * How many LISTs of caches in the namespace the server answered (its apiserver_request_total):
 * the informer's. The test's own looks at the server list across namespaces, counted apart.
 */
async function lists(): Promise<number> {
  const text = (await call('GET', '/metrics')).text;
  return text
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('apiserver_request_total{') &&
        l.includes('resource="caches"') &&
        l.includes('scope="namespace"') &&
        l.includes('verb="LIST"'),
    )
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

async function create(name: string, size = 1): Promise<void> {
  const r = await call('POST', CACHES, {
    body: { apiVersion: 'cache.example.com/v1', kind: 'Cache', metadata: { name }, spec: { size } },
  });
  expect(r.status, r.text).toBe(201);
}

/** The informer's cache, once it holds exactly what the server lists. */
async function inSync(): Promise<string[]> {
  return eventually('the informer in step with the server', async () => {
    const listed = await call('GET', '/apis/cache.example.com/v1/caches');
    const server = (listed.json as { items: Cache[] }).items.map((c) => c.metadata!.name!).sort();
    const cached = informer
      .list()
      .map((c) => c.metadata!.name!)
      .sort();
    return JSON.stringify(server) === JSON.stringify(cached) ? cached : undefined;
  });
}

beforeAll(async () => {
  server = await startServer({
    testing: true,
    crds: [new URL('../../examples/cache-crd.yaml', import.meta.url).pathname],
  });
  call = apiClient(server);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig);
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  informer = k8s.makeInformer<Cache>(
    kc,
    CACHES,
    () =>
      api.listNamespacedCustomObject({
        group: 'cache.example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'caches',
      }) as Promise<k8s.KubernetesListObject<Cache>>,
  );
  informer.on('add', (c) => seen.push(`add ${c.metadata?.name}`));
  informer.on('delete', (c) => seen.push(`delete ${c.metadata?.name}`));
  await informer.start();
  await create('a');
  await inSync();
});
afterAll(async () => {
  await informer?.stop();
  await server?.close();
});

describe('the client-node informer', () => {
  it('resumes a watch the server ended, without listing again', async () => {
    const listed = await lists();
    await server.testing!.faults.inject('drop', {
      match: { verbs: ['watch'], resources: ['caches'] },
      count: 1,
      action: { endWatch: { afterEvents: 1 } },
    });
    await create('b');
    await create('c');
    expect(await inSync()).toEqual(['a', 'b', 'c']);
    expect(await server.testing!.faults.hits('drop')).toBe(1);
    expect(await lists()).toBe(listed);
    expect(seen).toEqual(['add a', 'add b', 'add c']);
  });

  it('lists again when its resume gets 410, and ends up with what the server has', async () => {
    const listed = await lists();
    const testing = server.testing!;
    // The next watch (its resume) finds history expired; then the open one is ended.
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
    await eventually('the resume refused', async () =>
      (await testing.faults.hits('a-expire')) === 1 ? true : undefined,
    );
    await create('d');
    expect(await inSync()).toEqual(['a', 'b', 'c', 'd']);
    expect(await lists()).toBe(listed + 1);
  });
});
