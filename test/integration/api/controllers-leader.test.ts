// Two in-process servers on one real etcd (one prefix: one API) elect one of them, over a
// coordination.k8s.io/v1 Lease, to run the garbage collector and namespace deletion: exactly one
// holds the Lease, only it collects, and when it shuts down it releases the Lease, which the other
// takes over to collect what is orphaned after the failover. And a server that is not the leader
// leaves the work for when it leads, then catches up.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerHandle, type ServerOptions, createLogger, startServer } from '../../../server/index.js';
import { apiClient, type ApiResponse, type CallOptions } from '../../helpers/api-client.js';
import { installCrd, simpleCrd } from '../../helpers/crds.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';
import { type WatchEvent, openWatch } from '../../helpers/watch-stream.js';
import { formatMicroTime } from '../../../apimachinery/validation/micro-time.js';
import type { LeaseSpec } from '../../../server/registry/builtin/leases.js';

interface Meta {
  name: string;
  uid: string;
  namespace?: string;
}
interface Obj {
  apiVersion: string;
  kind: string;
  metadata: Meta;
}
type Call = (method: string, path: string, o?: CallOptions) => Promise<ApiResponse>;

const GROUP = 'leader.example.com';
const API = `${GROUP}/v1`;
const OPEN = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const PARENTS = (ns = 'default') => `/apis/${GROUP}/v1/namespaces/${ns}/parents`;
const KIDS = (ns = 'default') => `/apis/${GROUP}/v1/namespaces/${ns}/kids`;
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
const LEASE = `${LEASES}/mini-apiserver-controllers`;
const LEASE_SECONDS = 3;
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const ref = (owner: Obj) => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name,
  uid: owner.metadata.uid,
});

const lease = async (call: Call): Promise<LeaseSpec> => {
  const r = await call('GET', LEASE);
  expect(r.status, r.text).toBe(200);
  return (r.json as { spec: LeaseSpec }).spec;
};
const create = async (
  call: Call,
  path: string,
  kind: string,
  name: string,
  metadata: Record<string, unknown> = {},
): Promise<Obj> => {
  const r = await call('POST', path, { body: { apiVersion: API, kind, metadata: { name, ...metadata } } });
  expect(r.status, r.text).toBe(201);
  return r.json as Obj;
};
const gone = (call: Call, path: string) =>
  eventually(`${path} gone`, async () => ((await call('GET', path)).status === 404 ? true : undefined));

/** One replica: its server, a client, and the garbage collector's deletes it logged. */
interface Replica {
  id: string;
  server: ServerHandle;
  call: Call;
  deleted: string[];
  closed: boolean;
}

describe('controllers on one leader among two servers on one etcd', () => {
  let etcd: EtcdProcess;
  const replicas: Replica[] = [];

  async function replica(id: string, base: ServerOptions): Promise<Replica> {
    const deleted: string[] = [];
    // The collector's own record of what it deleted (a debug line per object), per server.
    const logger = createLogger({
      level: 'debug',
      write: (line) => {
        const entry = JSON.parse(line) as { msg?: string; name?: string };
        if (entry.msg === 'garbage collector deleting object' && entry.name) deleted.push(entry.name);
      },
    });
    const server = await startServer({
      ...base,
      logger,
      leaderElection: { leaseDurationSeconds: LEASE_SECONDS, retryPeriodMs: 250, identity: id },
    });
    return { id, server, call: apiClient(server), deleted, closed: false };
  }

  beforeAll(async () => {
    etcd = await startEtcd();
    const base: ServerOptions = {
      storage: 'etcd',
      etcdServers: [etcd.endpoint],
      etcdPrefix: `/${randomUUID()}`,
      compactionIntervalMs: 0,
      maxEventLoopUtilization: 1,
    };
    replicas.push(...(await Promise.all([replica('replica-a', base), replica('replica-b', base)])));
    await installCrd(replicas[0]!.call, simpleCrd(GROUP, 'parents', OPEN));
    await installCrd(replicas[0]!.call, simpleCrd(GROUP, 'kids', OPEN));
    // Served on both before anything is owned across them.
    for (const r of replicas)
      await eventually('kids served', async () => ((await r.call('GET', KIDS())).status === 200 ? true : undefined));
  });
  afterAll(async () => {
    await Promise.all(replicas.filter((r) => !r.closed).map((r) => r.server.close()));
    await etcd?.destroy();
  });

  let leader: Replica;
  let follower: Replica;

  it('exactly one server holds the Lease, and keeps renewing it', async () => {
    const first = await lease(replicas[0]!.call);
    expect(replicas.map((r) => r.id)).toContain(first.holderIdentity);
    expect(first).toMatchObject({ leaseDurationSeconds: LEASE_SECONDS, leaseTransitions: 0 });
    expect(first.renewTime).toMatch(MICRO_TIME);
    expect(first.acquireTime).toMatch(MICRO_TIME);
    leader = replicas.find((r) => r.id === first.holderIdentity)!;
    follower = replicas.find((r) => r !== leader)!;
    // Several retry periods later: renewed by the same holder, never taken over.
    await new Promise((r) => setTimeout(r, 1000));
    const later = await lease(follower.call);
    expect(later).toMatchObject({ holderIdentity: leader.id, leaseTransitions: 0, acquireTime: first.acquireTime });
    expect(later.renewTime! > first.renewTime!).toBe(true);
  });

  it('a dependent of a deleted owner is collected once, by the leader only', async () => {
    const p = await create(follower.call, PARENTS(), 'Parent', 'p1');
    await create(follower.call, KIDS(), 'Kid', 'k1', { ownerReferences: [ref(p)] });
    // Written through the follower: the leader still acts, as both watch one etcd.
    expect((await follower.call('DELETE', `${PARENTS()}/p1`)).status).toBe(200);
    await gone(leader.call, `${KIDS()}/k1`);
    expect(leader.deleted).toEqual(['k1']);
    expect(follower.deleted).toEqual([]);
  });

  it('when the leader shuts down it releases the Lease, the other takes it over from the release, and collects', async () => {
    // client-go's ReleaseOnCancel: the leader's last write clears the holder (duration 1 s), and
    // the follower's next round takes the released Lease rather than waiting out the 3 s lease.
    // The Lease's writes, watched from before the shutdown, show that order.
    const read = await follower.call('GET', LEASE);
    expect(read.status, read.text).toBe(200);
    const before = read.json as { metadata: { resourceVersion: string }; spec: LeaseSpec };
    const writes = await openWatch<WatchEvent<{ spec: LeaseSpec }>>(
      follower.server,
      `${LEASES}?watch=true&fieldSelector=metadata.name%3Dmini-apiserver-controllers&resourceVersion=${before.metadata.resourceVersion}`,
    );
    await leader.server.close();
    leader.closed = true;
    const events = await writes.until(
      'the follower holds the Lease',
      (ev) => ev.object.spec.holderIdentity === follower.id,
    );
    writes.close();
    const specs = events.map((ev) => ev.object.spec);
    // The leader's renewals, then its release, then the follower's acquisition.
    const handover = specs.slice(specs.findIndex((spec) => spec.holderIdentity !== leader.id));
    expect(handover.map((spec) => [spec.holderIdentity, spec.leaseDurationSeconds, spec.leaseTransitions])).toEqual([
      ['', 1, before.spec.leaseTransitions ?? 0],
      [follower.id, LEASE_SECONDS, (before.spec.leaseTransitions ?? 0) + 1],
    ]);
    expect(handover[1]!.acquireTime).toMatch(MICRO_TIME);

    // An orphan written after the failover: its owner is already gone when it is created.
    const p = await create(follower.call, PARENTS(), 'Parent', 'p2');
    expect((await follower.call('DELETE', `${PARENTS()}/p2`)).status).toBe(200);
    await gone(follower.call, `${PARENTS()}/p2`);
    await create(follower.call, KIDS(), 'Kid', 'k2', { ownerReferences: [ref(p)] });
    await gone(follower.call, `${KIDS()}/k2`);
    expect(follower.deleted).toEqual(['k2']);
  });

  it('the new leader also runs namespace deletion', async () => {
    const ns = `leader-${randomUUID().slice(0, 8)}`;
    const r = await follower.call('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    expect(r.status, r.text).toBe(201);
    await create(follower.call, KIDS(ns), 'Kid', 'k3');
    expect((await follower.call('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    await gone(follower.call, `/api/v1/namespaces/${ns}`);
  });
});

describe('a server that does not hold the Lease', () => {
  let etcd: EtcdProcess;
  let server: ServerHandle;
  let call: Call;
  /** What the server said of its leadership and of the collector's deletes, in order. */
  const said: string[] = [];
  beforeAll(async () => {
    etcd = await startEtcd();
    server = await startServer({
      storage: 'etcd',
      etcdServers: [etcd.endpoint],
      etcdPrefix: `/${randomUUID()}`,
      compactionIntervalMs: 0,
      leaderElection: { leaseDurationSeconds: LEASE_SECONDS, retryPeriodMs: 250, identity: 'me' },
      logger: createLogger({
        level: 'debug',
        write: (line) => {
          const entry = JSON.parse(line) as { msg?: string; name?: string };
          const leadership = /^leader election: (became the leader|stopped leading)$/.exec(entry.msg ?? '');
          if (leadership) said.push(leadership[1]!);
          if (entry.msg === 'garbage collector deleting object') said.push(`deleting ${entry.name}`);
        },
      }),
    });
    call = apiClient(server);
    await installCrd(call, simpleCrd(GROUP, 'parents', OPEN));
    await installCrd(call, simpleCrd(GROUP, 'kids', OPEN));
  });
  afterAll(async () => {
    await server?.close();
    await etcd?.destroy();
  });

  /** Writes the Lease as held by `ghost` (another process), renewed at `renewedMs`, for an hour. */
  const ghostLease = (renewedMs: number) =>
    eventually('the Lease written as the ghost holds it', async () => {
      const r = await call('GET', LEASE);
      const lease = r.json as { metadata: Meta; spec: LeaseSpec };
      const taking = lease.spec.holderIdentity !== 'ghost';
      lease.spec = {
        ...lease.spec,
        holderIdentity: 'ghost',
        leaseDurationSeconds: 3600,
        renewTime: formatMicroTime(renewedMs * 1000),
        leaseTransitions: (lease.spec.leaseTransitions ?? 0) + (taking ? 1 : 0),
      };
      return (await call('PUT', LEASE, { body: lease })).status === 200 ? lease.spec : undefined;
    });

  it('neither collects nor empties namespaces until it leads, then catches up', async () => {
    // Another process takes the Lease, as any client writes it (an update carrying the
    // resourceVersion, retried if we renewed meanwhile), for an hour: this server cannot take it
    // back while the test looks, however slow the machine.
    const taken = await ghostLease(Date.now());
    await eventually('this server to stop leading', async () => (said.includes('stopped leading') ? true : undefined));

    const p = await create(call, PARENTS(), 'Parent', 'p');
    await create(call, KIDS(), 'Kid', 'k', { ownerReferences: [ref(p)] });
    expect((await call('DELETE', `${PARENTS()}/p`)).status).toBe(200);
    const ns = `idle-${randomUUID().slice(0, 8)}`;
    expect(
      (
        await call('POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
        })
      ).status,
    ).toBe(201);
    expect((await call('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    // Time for a server that wrongly acted to do so (not a bound: a slower machine only gives it less).
    await new Promise((r) => setTimeout(r, 500));
    expect((await call('GET', `${KIDS()}/k`)).status).toBe(200);
    expect((await call('GET', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    expect((await lease(call)).holderIdentity).toBe('ghost');

    // The ghost died long ago: its last renewal two hours back, its hour long past. This server
    // takes over at its next round, and finishes both.
    await ghostLease(Date.now() - 2 * 3600 * 1000);
    const mine = await eventually('this server holds the Lease', async () => {
      const spec = await lease(call);
      return spec.holderIdentity === 'me' ? spec : undefined;
    });
    expect(mine.leaseTransitions).toBe((taken.leaseTransitions ?? 0) + 1);
    await gone(call, `${KIDS()}/k`);
    await gone(call, `/api/v1/namespaces/${ns}`);
    // The collector deleted only once it led again.
    expect(said).toEqual(['became the leader', 'stopped leading', 'became the leader', 'deleting k']);
  });
});
