// storage/instrumented.ts: every read and write of a wrapped Storage timed under kube's operation
// and type labels (etcd_request_duration_seconds), over the real embedded SQLite store.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unavailable } from '../../../storage/errors.js';
import { type StorageObserver, instrumentStorage, resourceTypeOfKey } from '../../../storage/instrumented.js';
import type { Storage } from '../../../storage/interface.js';
import { SqliteStorage } from '../../../storage/sqlite.js';
import { Metrics } from '../../../server/metrics.js';

describe('resourceTypeOfKey: kube GroupResource.String() from the key', () => {
  it.each<[string, string]>([
    ['/registry/pods/ns/p', 'pods'],
    ['/registry/pods/', 'pods'],
    ['/registry/namespaces/default', 'namespaces'],
    ['/registry/apps/deployments/ns/d', 'deployments.apps'],
    ['/registry/batch/jobs/', 'jobs.batch'],
    ['/registry/coordination.k8s.io/leases/kube-system/l', 'leases.coordination.k8s.io'],
    ['/registry/rbac.authorization.k8s.io/clusterroles/admin', 'clusterroles.rbac.authorization.k8s.io'],
    ['/registry/example.com/widgets/', 'widgets.example.com'],
    ['/registry/example.com/', ''],
    ['/registry/', ''],
    ['/other/key', ''],
  ])('%s: %j', (key, want) => {
    expect(resourceTypeOfKey(key)).toBe(want);
  });
});

describe('instrumentStorage', () => {
  let inner: Storage;
  let calls: [string, string, boolean][];
  let storage: Storage;
  const observer: StorageObserver = {
    observe(operation, type, seconds, failed) {
      expect(seconds).toBeGreaterThanOrEqual(0);
      calls.push([operation, type, failed]);
    },
  };

  beforeEach(() => {
    inner = SqliteStorage.open(':memory:');
    calls = [];
    storage = instrumentStorage(inner, observer);
  });
  afterEach(async () => {
    await storage.close();
  });

  it('times get, range, create, update and delete under kube operation names', async () => {
    const kv = await storage.create('/registry/pods/ns/p', '{}');
    const updated = await storage.update('/registry/pods/ns/p', '{"a":1}', kv.modRevision);
    expect(await storage.get('/registry/pods/ns/p')).toMatchObject({ value: '{"a":1}' });
    expect((await storage.range('/registry/pods/ns/')).kvs).toHaveLength(1);
    await storage.delete('/registry/pods/ns/p', updated.modRevision);
    expect(calls).toEqual([
      ['create', 'pods', false],
      ['update', 'pods', false],
      ['get', 'pods', false],
      ['list', 'pods', false],
      ['delete', 'pods', false],
    ]);
    expect(storage.backend).toBe(inner.backend);
  });

  it("times a read of a key's revision alone as the get it stands for", async () => {
    const kv = await storage.create('/registry/pods/ns/p', '{}');
    expect(await storage.modRevision!('/registry/pods/ns/p')).toBe(kv.modRevision);
    expect(calls).toEqual([
      ['create', 'pods', false],
      ['get', 'pods', false],
    ]);
  });

  it('times a count-only range as kube times its Stats (listWithCount)', async () => {
    await storage.create('/registry/secrets/ns/a', '{}');
    expect(await storage.count('/registry/secrets/')).toBe(1);
    expect(calls).toEqual([
      ['create', 'secrets', false],
      ['listWithCount', 'secrets', false],
    ]);
  });

  it('counts a lost compare-and-swap, an existing key or a missing one as answers, not failures', async () => {
    await storage.create('/registry/apps/deployments/ns/d', '{}');
    await expect(storage.create('/registry/apps/deployments/ns/d', '{}')).rejects.toMatchObject({ code: 'KeyExists' });
    await expect(storage.update('/registry/apps/deployments/ns/d', '{}', 999)).rejects.toMatchObject({
      code: 'Conflict',
    });
    await expect(storage.delete('/registry/apps/deployments/ns/gone')).rejects.toMatchObject({ code: 'NotFound' });
    expect(calls.map((c) => c[2])).toEqual([false, false, false, false]);
    expect(calls.map((c) => c[1])).toEqual(Array(4).fill('deployments.apps'));
  });

  it('counts an error of the backend as a failure, and still throws it', async () => {
    const down = { backend: 'etcd', get: () => Promise.reject(unavailable('etcd is down')) };
    const broken = instrumentStorage(down as unknown as Storage, observer);
    await expect(broken.get('/registry/secrets/ns/s')).rejects.toThrow('etcd is down');
    expect(calls).toEqual([['get', 'secrets', true]]);
  });

  it('passes watches, revisions and compaction through untimed', async () => {
    const seen: string[] = [];
    const handle = storage.watch('/registry/pods/', await storage.currentRevision(), {
      onEvents: (evs) => evs.forEach((e) => seen.push(`${e.type} ${e.kv.key}`)),
      onError: () => {},
    });
    await inner.create('/registry/pods/ns/w', '{}');
    await expect.poll(() => seen).toEqual(['create /registry/pods/ns/w']);
    handle.close();
    await storage.compact(await storage.currentRevision());
    expect(await storage.compactedRevision()).toBeGreaterThan(0);
    expect(await storage.ping()).toBe(true);
    expect(calls).toEqual([]);
  });

  it("feeds a server's etcd_request_duration_seconds", async () => {
    const metrics = new Metrics();
    const timed = instrumentStorage(SqliteStorage.open(':memory:'), metrics.storage);
    await timed.create('/registry/configmaps/ns/c', '{}');
    await timed.range('/registry/configmaps/');
    await timed.close();
    const text = await metrics.render();
    expect(text).toContain('etcd_request_duration_seconds_count{operation="create",type="configmaps"} 1\n');
    expect(text).toContain('etcd_request_duration_seconds_count{operation="list",type="configmaps"} 1\n');
    expect(text).toContain('etcd_requests_total{operation="list",type="configmaps"} 1\n');
  });
});
