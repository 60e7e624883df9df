// Deletion propagation and the garbage collector over HTTPS against an in-process server, on both
// backends: Background, Foreground and Orphan deletes of custom-resource owners, the older
// orphanDependents, a second DELETE that changes the policy, deletecollection, dependents whose
// owners never existed or live elsewhere, cluster-scoped owners, cycles, and a restart that finds
// an orphan written while the server was down.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, type ServerOptions, startServer } from '../../../server/index.js';
import { openStorage, type StorageOptions } from '../../../storage/index.js';
import { apiClient, type ApiResponse, type CallOptions } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
type Call = (method: string, path: string, o?: CallOptions) => Promise<ApiResponse & { json: Json }>;

const GROUP = 'gc.example.com';
const API = `${GROUP}/v1`;
const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const PARENTS = (ns = 'default') => `/apis/${GROUP}/v1/namespaces/${ns}/parents`;
const CHILDREN = (ns = 'default') => `/apis/${GROUP}/v1/namespaces/${ns}/kids`;
const CLUSTER_PARENTS = `/apis/${GROUP}/v1/clusterparents`;
const HOLD = 'example.com/hold';

let etcd: EtcdProcess | undefined;
const dirs: string[] = [];
afterAll(async () => {
  await etcd?.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Backend {
  name: string;
  /** Options for a server; the same `data` gives the same stored objects (a restart). */
  options(data: string): Promise<ServerOptions>;
  storage(data: string): Promise<StorageOptions>;
  fresh(): string;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    options: async (dataDir) => ({ storage: 'sqlite', dataDir }),
    storage: async (dataDir) => ({ kind: 'sqlite', path: join(dataDir, 'state.db') }),
    fresh: () => {
      const d = mkdtempSync(join(tmpdir(), 'mini-apiserver-gc-'));
      dirs.push(d);
      return join(d, 'data');
    },
  },
  {
    name: 'etcd',
    options: async (prefix) => {
      etcd ??= await startEtcd();
      return { storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: prefix };
    },
    storage: async (prefix) => {
      etcd ??= await startEtcd();
      return { kind: 'etcd', endpoints: [etcd.endpoint], prefix };
    },
    fresh: () => `/${randomUUID()}`,
  },
];

const ref = (owner: Json, extra: Record<string, unknown> = {}) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name,
  uid: owner.metadata.uid,
  ...extra,
});

async function installKinds(call: Call): Promise<void> {
  await installCrd(call, simpleCrd(GROUP, 'parents', OPEN));
  await installCrd(call, simpleCrd(GROUP, 'kids', OPEN));
  await installCrd(call, simpleCrd(GROUP, 'clusterparents', OPEN, 'Cluster'));
}

describe.each(backends)('garbage collection on $name', (backend) => {
  let server: ServerHandle;
  let call: Call;

  const create = async (
    path: string,
    kind: string,
    name: string,
    metadata: Record<string, unknown> = {},
  ): Promise<Json> => {
    const r = await call('POST', path, { body: { apiVersion: API, kind, metadata: { name, ...metadata } } });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };
  const parent = (name: string, metadata: Record<string, unknown> = {}, ns = 'default') =>
    create(PARENTS(ns), 'Parent', name, metadata);
  const child = (name: string, owners: Json[], metadata: Record<string, unknown> = {}, ns = 'default') =>
    create(CHILDREN(ns), 'Kid', name, { ownerReferences: owners, ...metadata });
  const get = async (path: string): Promise<Json | undefined> => {
    const r = await call('GET', path);
    if (r.status === 404) return undefined;
    expect(r.status, r.text).toBe(200);
    return r.json;
  };
  const gone = (path: string, timeoutMs?: number) =>
    eventually(`${path} gone`, async () => ((await get(path)) === undefined ? true : undefined), timeoutMs);
  const release = async (path: string) => {
    const r = await call('PATCH', path, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    expect([200, 404], r.text).toContain(r.status);
  };

  beforeAll(async () => {
    server = await startServer({ ...(await backend.options(backend.fresh())), maxEventLoopUtilization: 1 });
    call = apiClient(server) as Call;
    await installKinds(call);
    const ns = await call('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-other' } },
    });
    expect(ns.status, ns.text).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('Background (the default): the owner goes at once, its dependents after', async () => {
    const p = await parent('bg');
    await child('bg-1', [ref(p)]);
    await child('bg-2', [ref(p)]);
    const r = await call('DELETE', `${PARENTS()}/bg`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'bg', uid: p.metadata.uid } });
    expect(await get(`${PARENTS()}/bg`)).toBeUndefined();
    await gone(`${CHILDREN()}/bg-1`);
    await gone(`${CHILDREN()}/bg-2`);
  });

  it('Background asked for explicitly, in the query and in the body', async () => {
    const p = await parent('bgq');
    await child('bgq-1', [ref(p)]);
    expect((await call('DELETE', `${PARENTS()}/bgq?propagationPolicy=Background`)).status).toBe(200);
    await gone(`${CHILDREN()}/bgq-1`);
    const p2 = await parent('bgb');
    await child('bgb-1', [ref(p2)]);
    expect((await call('DELETE', `${PARENTS()}/bgb`, { body: { propagationPolicy: 'Background' } })).status).toBe(200);
    await gone(`${CHILDREN()}/bgb-1`);
  });

  it('Foreground: the owner stays, marked, until its blocking dependents are gone', async () => {
    const p = await parent('fg');
    await child('fg-1', [ref(p, { blockOwnerDeletion: true })]);
    await child('fg-2', [ref(p)]);
    // Held by a finalizer of its own: the owner must wait for it.
    await child('fg-held', [ref(p, { blockOwnerDeletion: true })], { finalizers: [HOLD] });
    const r = await call('DELETE', `${PARENTS()}/fg`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(r.json.metadata.deletionTimestamp).toBeTruthy();
    await gone(`${CHILDREN()}/fg-1`);
    await gone(`${CHILDREN()}/fg-2`);
    const held = await eventually('fg-held marked', async () =>
      (await get(`${CHILDREN()}/fg-held`))?.metadata.deletionTimestamp ? true : undefined,
    );
    expect(held).toBe(true);
    const owner = await get(`${PARENTS()}/fg`);
    expect(owner?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(owner?.metadata.deletionTimestamp).toBeTruthy();
    await release(`${CHILDREN()}/fg-held`);
    await gone(`${CHILDREN()}/fg-held`);
    await gone(`${PARENTS()}/fg`);
  });

  it('Foreground without dependents: the owner goes as soon as the collector sees it', async () => {
    await parent('fg-alone');
    const r = await call('DELETE', `${PARENTS()}/fg-alone?propagationPolicy=Foreground`);
    expect(r.status).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(['foregroundDeletion']);
    await gone(`${PARENTS()}/fg-alone`);
  });

  it('Orphan: the dependents stay, without their reference to the owner', async () => {
    const p = await parent('or');
    const other = await parent('or-other');
    await child('or-1', [ref(p, { controller: true, blockOwnerDeletion: true })]);
    await child('or-2', [ref(p), ref(other)]);
    const r = await call('DELETE', `${PARENTS()}/or?propagationPolicy=Orphan`);
    expect(r.status).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(['orphan']);
    await gone(`${PARENTS()}/or`);
    const c1 = await get(`${CHILDREN()}/or-1`);
    const c2 = await get(`${CHILDREN()}/or-2`);
    expect(c1?.metadata.ownerReferences).toBeUndefined();
    expect(c2?.metadata.ownerReferences).toEqual([ref(other)]);
    expect(c1?.metadata.deletionTimestamp).toBeUndefined();
  });

  it('orphanDependents: true orphans, false is Background with a 202 while the owner waits; both set is a 422', async () => {
    const p = await parent('od');
    await child('od-1', [ref(p)]);
    expect((await call('DELETE', `${PARENTS()}/od`, { body: { orphanDependents: true } })).status).toBe(200);
    await gone(`${PARENTS()}/od`);
    expect((await get(`${CHILDREN()}/od-1`))?.metadata.ownerReferences).toBeUndefined();

    const q = await parent('odf', { finalizers: [HOLD] });
    await child('odf-1', [ref(q)]);
    const r = await call('DELETE', `${PARENTS()}/odf?orphanDependents=false`);
    expect(r.status, r.text).toBe(202);
    expect(r.json.metadata.finalizers).toEqual([HOLD]);
    // The owner is still there (held), so its dependent is not collected.
    expect(await get(`${CHILDREN()}/odf-1`)).toBeDefined();
    await release(`${PARENTS()}/odf`);
    await gone(`${CHILDREN()}/odf-1`);

    await parent('both');
    const both = await call('DELETE', `${PARENTS()}/both`, {
      body: { orphanDependents: true, propagationPolicy: 'Orphan' },
    });
    expect(both.status).toBe(422);
    expect(both.json.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
    expect(await get(`${PARENTS()}/both`)).toBeDefined();
  });

  it('a second DELETE with another policy changes the finalizers: Foreground to Orphan, Foreground to Background', async () => {
    const p = await parent('re');
    await child('re-held', [ref(p, { blockOwnerDeletion: true })], { finalizers: [HOLD] });
    await child('re-1', [ref(p)]);
    expect((await call('DELETE', `${PARENTS()}/re?propagationPolicy=Foreground`)).json.metadata.finalizers).toEqual([
      'foregroundDeletion',
    ]);
    await gone(`${CHILDREN()}/re-1`);
    const again = await call('DELETE', `${PARENTS()}/re?propagationPolicy=Orphan`);
    expect(again.status).toBe(200);
    expect(again.json.metadata.finalizers).toEqual(['orphan']);
    await gone(`${PARENTS()}/re`);
    const held = await get(`${CHILDREN()}/re-held`);
    expect(held?.metadata.ownerReferences).toBeUndefined();
    await release(`${CHILDREN()}/re-held`);

    const q = await parent('re2');
    await child('re2-held', [ref(q, { blockOwnerDeletion: true })], { finalizers: [HOLD] });
    await call('DELETE', `${PARENTS()}/re2?propagationPolicy=Foreground`);
    // Background drops the only finalizer: the owner goes now, the held dependent is collected.
    const bg = await call('DELETE', `${PARENTS()}/re2?propagationPolicy=Background`);
    expect(bg.status).toBe(200);
    expect(bg.json).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(await get(`${PARENTS()}/re2`)).toBeUndefined();
    await eventually('re2-held marked', async () =>
      (await get(`${CHILDREN()}/re2-held`))?.metadata.deletionTimestamp ? true : undefined,
    );
    await release(`${CHILDREN()}/re2-held`);
  });

  it('deletecollection passes the policy to each delete', async () => {
    const p = await parent('dc-a', { labels: { set: 'dc' } });
    const q = await parent('dc-b', { labels: { set: 'dc' } });
    await child('dc-1', [ref(p)]);
    await child('dc-2', [ref(q)]);
    const r = await call('DELETE', `${PARENTS()}?labelSelector=set%3Ddc&propagationPolicy=Orphan`);
    expect(r.status, r.text).toBe(200);
    await gone(`${PARENTS()}/dc-a`);
    await gone(`${PARENTS()}/dc-b`);
    for (const n of ['dc-1', 'dc-2'])
      expect((await get(`${CHILDREN()}/${n}`))?.metadata.ownerReferences).toBeUndefined();
  });

  it('a dependent whose owner never existed, or is another object of the same name, is collected', async () => {
    await child('never', [{ apiVersion: API, kind: 'Parent', name: 'nobody', uid: randomUUID() }]);
    await parent('impostor');
    await child('mismatch', [{ apiVersion: API, kind: 'Parent', name: 'impostor', uid: randomUUID() }]);
    await gone(`${CHILDREN()}/never`);
    await gone(`${CHILDREN()}/mismatch`);
    expect(await get(`${PARENTS()}/impostor`)).toBeDefined();
  });

  it('a dependent with one live owner keeps it, losing only the reference to the missing one', async () => {
    const p = await parent('half');
    await child('half-1', [ref(p), { apiVersion: API, kind: 'Parent', name: 'gone', uid: randomUUID() }]);
    const c = await eventually('dangling reference dropped', async () => {
      const obj = await get(`${CHILDREN()}/half-1`);
      return obj?.metadata.ownerReferences?.length === 1 ? obj : undefined;
    });
    expect(c.metadata.ownerReferences).toEqual([ref(p)]);
  });

  it('namespaced dependents of a cluster-scoped owner are collected with it', async () => {
    const r = await call('POST', CLUSTER_PARENTS, {
      body: { apiVersion: API, kind: 'Clusterparent', metadata: { name: 'cp' } },
    });
    expect(r.status, r.text).toBe(201);
    await child('cp-1', [ref(r.json)]);
    await child('cp-2', [ref(r.json)], {}, 'gc-other');
    // Alive owner: nothing happens (checked after the collector has had time to look).
    await new Promise((res) => setTimeout(res, 300));
    expect(await get(`${CHILDREN()}/cp-1`)).toBeDefined();
    expect((await call('DELETE', `${CLUSTER_PARENTS}/cp`)).status).toBe(200);
    await gone(`${CHILDREN()}/cp-1`);
    await gone(`${CHILDREN('gc-other')}/cp-2`);
  });

  it('a cluster-scoped object naming a namespaced owner is left alone, as kube leaves it', async () => {
    const r = await call('POST', CLUSTER_PARENTS, {
      body: {
        apiVersion: API,
        kind: 'Clusterparent',
        metadata: {
          name: 'cp-invalid',
          ownerReferences: [{ apiVersion: API, kind: 'Parent', name: 'nobody', uid: randomUUID() }],
        },
      },
    });
    expect(r.status, r.text).toBe(201);
    // Beside it, a namespaced dependent of a missing owner that IS collected: proof the collector looked.
    await child('cp-invalid-witness', [{ apiVersion: API, kind: 'Parent', name: 'nobody', uid: randomUUID() }]);
    await gone(`${CHILDREN()}/cp-invalid-witness`);
    await new Promise((res) => setTimeout(res, 200));
    expect(await get(`${CLUSTER_PARENTS}/cp-invalid`)).toBeDefined();
  });

  it('a built-in owner (a core/v1 Namespace) is followed like any other', async () => {
    const ns = await call('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-owner-ns' } },
    });
    expect(ns.status, ns.text).toBe(201);
    await child('owned-by-ns', [
      { apiVersion: 'v1', kind: 'Namespace', name: 'gc-owner-ns', uid: ns.json.metadata.uid },
    ]);
    await new Promise((res) => setTimeout(res, 300));
    expect(await get(`${CHILDREN()}/owned-by-ns`)).toBeDefined();
    expect((await call('DELETE', '/api/v1/namespaces/gc-owner-ns')).status).toBe(200);
    await gone('/api/v1/namespaces/gc-owner-ns');
    await gone(`${CHILDREN()}/owned-by-ns`);
  });

  it('a namespace deleted with Orphan: its dependents elsewhere stay, unowned', async () => {
    const ns = await call('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-orphan-ns' } },
    });
    expect(ns.status, ns.text).toBe(201);
    await child('kept-by-ns', [
      { apiVersion: 'v1', kind: 'Namespace', name: 'gc-orphan-ns', uid: ns.json.metadata.uid },
    ]);
    const r = await call('DELETE', '/api/v1/namespaces/gc-orphan-ns', { body: { propagationPolicy: 'Orphan' } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.metadata.finalizers).toEqual(['orphan']);
    expect(r.json.status.phase).toBe('Terminating');
    await gone('/api/v1/namespaces/gc-orphan-ns');
    const kept = await get(`${CHILDREN()}/kept-by-ns`);
    expect(kept).toBeDefined();
    expect(kept.metadata.ownerReferences).toBeUndefined();
  });

  it('a namespaced owner named from another namespace is absent for that dependent only', async () => {
    const p = await parent('xns');
    await child('xns-here', [ref(p)]);
    await child('xns-there', [ref(p)], {}, 'gc-other');
    await gone(`${CHILDREN('gc-other')}/xns-there`);
    expect(await get(`${CHILDREN()}/xns-here`)).toBeDefined();
    expect(await get(`${PARENTS()}/xns`)).toBeDefined();
  });

  it('a cycle of owner references does not hang: Background and Foreground both finish', async () => {
    // a owns b, b owns a: create a, then b owned by a, then give a its owner b.
    const a = await parent('cy-a');
    const b = await child('cy-b', [ref(a, { blockOwnerDeletion: true })]);
    const upd = await call('PATCH', `${PARENTS()}/cy-a`, {
      body: { metadata: { ownerReferences: [ref(b, { blockOwnerDeletion: true })] } },
      contentType: 'application/merge-patch+json',
    });
    expect(upd.status, upd.text).toBe(200);
    await new Promise((res) => setTimeout(res, 300));
    expect(await get(`${PARENTS()}/cy-a`)).toBeDefined();
    expect(await get(`${CHILDREN()}/cy-b`)).toBeDefined();
    expect((await call('DELETE', `${PARENTS()}/cy-a?propagationPolicy=Foreground`)).status).toBe(200);
    await gone(`${PARENTS()}/cy-a`);
    await gone(`${CHILDREN()}/cy-b`);

    const c = await parent('cy-c');
    const d = await child('cy-d', [ref(c)]);
    await call('PATCH', `${PARENTS()}/cy-c`, {
      body: { metadata: { ownerReferences: [ref(d)] } },
      contentType: 'application/merge-patch+json',
    });
    expect((await call('DELETE', `${CHILDREN()}/cy-d`)).status).toBe(200);
    await gone(`${PARENTS()}/cy-c`);

    // A self-reference: the object owns itself; deleting it in the foreground still finishes.
    const e = await parent('cy-self');
    await call('PATCH', `${PARENTS()}/cy-self`, {
      body: { metadata: { ownerReferences: [ref(e, { blockOwnerDeletion: true })] } },
      contentType: 'application/merge-patch+json',
    });
    expect((await call('DELETE', `${PARENTS()}/cy-self?propagationPolicy=Foreground`)).status).toBe(200);
    await gone(`${PARENTS()}/cy-self`);
  });

  it('a ring of owners all deleted in the foreground at once drains (kube would wait forever)', async () => {
    const a = await parent('ring-a');
    const b = await child('ring-b', [ref(a, { blockOwnerDeletion: true })]);
    const patched = await call('PATCH', `${PARENTS()}/ring-a`, {
      body: { metadata: { ownerReferences: [ref(b, { blockOwnerDeletion: true })] } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status, patched.text).toBe(200);
    const [ra, rb] = await Promise.all([
      call('DELETE', `${PARENTS()}/ring-a?propagationPolicy=Foreground`),
      call('DELETE', `${CHILDREN()}/ring-b?propagationPolicy=Foreground`),
    ]);
    expect([ra.status, rb.status]).toEqual([200, 200]);
    await gone(`${PARENTS()}/ring-a`);
    await gone(`${CHILDREN()}/ring-b`);
  });

  it('ownerReferences are validated with kube’s texts', async () => {
    const p = await parent('val');
    const q = await parent('val2');
    const two = await call('POST', CHILDREN(), {
      body: {
        apiVersion: API,
        kind: 'Kid',
        metadata: { name: 'val-c', ownerReferences: [ref(p, { controller: true }), ref(q, { controller: true })] },
      },
    });
    expect(two.status).toBe(422);
    expect(two.json.message).toContain(
      'Only one reference can have Controller set to true. Found "true" in references for Parent/val and Parent/val2',
    );
    const noUid = await call('POST', CHILDREN(), {
      body: {
        apiVersion: API,
        kind: 'Kid',
        metadata: { name: 'val-u', ownerReferences: [{ apiVersion: API, kind: 'Parent', name: 'val' }] },
      },
    });
    expect(noUid.status).toBe(422);
    expect(noUid.json.message).toBe(
      'Kid.gc.example.com "val-u" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty',
    );
  });

  it('a CRD kind installed after start is collected too', async () => {
    await installCrd(call, simpleCrd(GROUP, 'latecomers', OPEN));
    const p = await parent('late');
    const r = await call('POST', `/apis/${GROUP}/v1/namespaces/default/latecomers`, {
      body: { apiVersion: API, kind: 'Latecomer', metadata: { name: 'l1', ownerReferences: [ref(p)] } },
    });
    expect(r.status, r.text).toBe(201);
    await call('DELETE', `${PARENTS()}/late`);
    await gone(`/apis/${GROUP}/v1/namespaces/default/latecomers/l1`);
  });
});

describe.each(backends)('garbage collection across a restart on $name', (backend) => {
  it('objects orphaned while the server was down are collected after it starts again', async () => {
    const data = backend.fresh();
    let server = await startServer(await backend.options(data));
    let call = apiClient(server) as Call;
    let p: Json;
    try {
      await installKinds(call);
      p = (await call('POST', PARENTS(), { body: { apiVersion: API, kind: 'Parent', metadata: { name: 'p' } } })).json;
      const c = await call('POST', CHILDREN(), {
        body: { apiVersion: API, kind: 'Kid', metadata: { name: 'kept', ownerReferences: [ref(p)] } },
      });
      expect(c.status, c.text).toBe(201);
    } finally {
      await server.close();
    }

    // While it is down: the owner vanishes from storage, and a dependent of nobody appears.
    const storage = await openStorage(await backend.storage(data));
    try {
      await storage.delete(`/registry/${GROUP}/parents/default/p`);
      const orphan = {
        apiVersion: API,
        kind: 'Kid',
        metadata: {
          name: 'written',
          namespace: 'default',
          uid: randomUUID(),
          creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          ownerReferences: [{ apiVersion: API, kind: 'Parent', name: 'nobody', uid: randomUUID() }],
        },
      };
      await storage.create(`/registry/${GROUP}/kids/default/written`, JSON.stringify(orphan));
    } finally {
      await storage.close();
    }

    server = await startServer(await backend.options(data));
    call = apiClient(server) as Call;
    try {
      const get = (path: string) => call('GET', path).then((r) => r.status);
      await eventually('the dependent of the deleted owner collected', async () =>
        (await get(`${CHILDREN()}/kept`)) === 404 ? true : undefined,
      );
      await eventually('the dependent written while down collected', async () =>
        (await get(`${CHILDREN()}/written`)) === 404 ? true : undefined,
      );
    } finally {
      await server.close();
    }
  });
});
