// Snapshots through the API, on both backends: a save is Ready with what it holds; a restore puts
// objects back as new resourceVersions that an open watch sees as DELETED, ADDED and MODIFIED, a
// CRD made since is removed with its API, one deleted since is served again with its objects, and
// the testing API's own objects are left alone.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, type ServerOptions, startServer } from '../../../server/index.js';
import { apiClient } from '../../helpers/api-client.js';
import { CRDS_PATH, installCrd, simpleCrd } from '../../helpers/crds.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';
import { type WatchEvent, openWatch } from '../../helpers/watch-stream.js';

const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

type Event = WatchEvent<{ metadata: { name: string; resourceVersion: string }; data?: Record<string, string> }>;

const backends: [string, () => Promise<{ options: ServerOptions; teardown(): Promise<void> }>][] = [
  ['sqlite', async () => ({ options: { storage: 'memory' }, teardown: async () => {} })],
  [
    'etcd',
    async () => {
      const etcd: EtcdProcess = await startEtcd();
      return {
        options: { etcdServers: [etcd.endpoint], etcdPrefix: `/snap-${randomUUID().slice(0, 8)}` },
        teardown: () => etcd.destroy(),
      };
    },
  ],
];

describe.each(backends)('snapshots on %s', (_name, backend) => {
  let server: ServerHandle;
  let call: ReturnType<typeof apiClient>;
  let teardown: () => Promise<void>;

  beforeAll(async () => {
    const b = await backend();
    teardown = b.teardown;
    server = await startServer({ ...b.options, testing: true });
    call = apiClient(server);
  });
  afterAll(async () => {
    await server?.close();
    await teardown?.();
  });

  const cm = (name: string, v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });
  const rvOf = (r: { json: unknown }): string =>
    (r.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  it('a restore writes the difference, which an open watch sees, at new resourceVersions', async () => {
    const testing = server.testing!;
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('kept', '1') });
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('changed', '1') });
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('deleted', '1') });
    const saved = await testing.snapshots.save('base');
    expect(saved.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True', reason: 'Saved' });
    expect(saved.objects).toBeGreaterThan(3);

    await call('PUT', '/api/v1/namespaces/default/configmaps/changed', { body: cm('changed', '2') });
    await call('DELETE', '/api/v1/namespaces/default/configmaps/deleted');
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('created', '1') });
    const before = Number(rvOf(created));
    // A Fault made after the save is the testing API's own: the restore leaves it.
    await testing.faults.inject('survivor', { match: { names: ['nothing'] }, action: { error: { code: 500 } } });

    const watch = await openWatch<Event>(
      server,
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${before}`,
    );
    const restored = await testing.snapshots.restore('base');
    // At least these three: what the server's own controllers changed since the save goes back too.
    expect(restored.created).toBeGreaterThanOrEqual(1);
    expect(restored.updated).toBeGreaterThanOrEqual(1);
    expect(restored.deleted).toBeGreaterThanOrEqual(1);
    const events = await watch.next(3);
    watch.close();
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.data?.['v']])).toEqual([
      ['MODIFIED', 'changed', '1'],
      ['DELETED', 'created', '1'],
      ['ADDED', 'deleted', '1'],
    ]);
    for (const e of events) expect(Number(e.object.metadata.resourceVersion)).toBeGreaterThan(before);
    expect(Number(restored.resourceVersion)).toBeGreaterThanOrEqual(Number(events[2]!.object.metadata.resourceVersion));

    const names = (
      (await call('GET', '/api/v1/namespaces/default/configmaps')).json as {
        items: { metadata: { name: string } }[];
      }
    ).items.map((i) => i.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['changed', 'deleted', 'kept']));
    expect(names).not.toContain('created');
    expect((await call('GET', '/apis/testing.mini-apiserver.io/v1alpha1/faults/survivor')).status).toBe(200);
    await testing.faults.remove('survivor');
  });

  it('CRDs go back too: one made since is unserved with its objects, one deleted since is served again', async () => {
    const testing = server.testing!;
    const before = simpleCrd('snap.example.com', 'olds', OPEN);
    await installCrd(call, before);
    await call('POST', '/apis/snap.example.com/v1/namespaces/default/olds', {
      body: { apiVersion: 'snap.example.com/v1', kind: 'Old', metadata: { name: 'o' } },
    });
    await testing.snapshots.save('with-old');

    const after = simpleCrd('snap.example.com', 'news', OPEN);
    await installCrd(call, after);
    await call('POST', '/apis/snap.example.com/v1/namespaces/default/news', {
      body: { apiVersion: 'snap.example.com/v1', kind: 'New', metadata: { name: 'n' } },
    });
    expect((await call('DELETE', `${CRDS_PATH}/olds.snap.example.com`)).status).toBe(200);
    await eventually('olds gone', async () =>
      (await call('GET', `${CRDS_PATH}/olds.snap.example.com`)).status === 404 ? true : undefined,
    );

    await testing.snapshots.restore('with-old');
    await eventually('olds served again', async () =>
      (await call('GET', '/apis/snap.example.com/v1/namespaces/default/olds/o')).status === 200 ? true : undefined,
    );
    await eventually('news unserved', async () =>
      (await call('GET', '/apis/snap.example.com/v1/namespaces/default/news')).status === 404 ? true : undefined,
    );
    expect((await call('GET', `${CRDS_PATH}/news.snap.example.com`)).status).toBe(404);
  });

  it("a restore of a Snapshot that does not exist is kube's 404; a deleted one takes its saved state with it", async () => {
    const testing = server.testing!;
    const missing = await call('POST', '/apis/testing.mini-apiserver.io/v1alpha1/snapshots/nope/restore', {
      body: { apiVersion: 'testing.mini-apiserver.io/v1alpha1', kind: 'SnapshotRestore' },
    });
    expect(missing.status).toBe(404);
    expect((missing.json as { message: string }).message).toBe('snapshots.testing.mini-apiserver.io "nope" not found');
    await testing.snapshots.save('short-lived');
    await testing.snapshots.remove('short-lived');
    // Saved again under the same name: the state now, not the old one.
    await call('POST', '/api/v1/namespaces/default/configmaps', { body: cm('after-delete', '1') });
    await testing.snapshots.save('short-lived');
    await call('DELETE', '/api/v1/namespaces/default/configmaps/after-delete');
    expect((await testing.snapshots.restore('short-lived')).created).toBe(1);
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/after-delete')).status).toBe(200);
  });

  it('the body of a restore, when given, must be a SnapshotRestore', async () => {
    await server.testing!.snapshots.save('body-check');
    const r = await call('POST', '/apis/testing.mini-apiserver.io/v1alpha1/snapshots/body-check/restore', {
      body: { apiVersion: 'v1', kind: 'ConfigMap' },
    });
    expect(r.status).toBe(400);
  });
});
