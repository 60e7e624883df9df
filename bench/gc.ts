// bench/gc: the garbage collector deleting an owner's dependents, beside the same number deleted by
// one deletecollection in the same run (the server does the same deletes, without the collector's
// watch, graph and live reads).
//
//   background: ms from DELETE of an owner with 1,000 dependents until the last dependent is gone.
//   foreground: ms from DELETE ?propagationPolicy=Foreground until the owner itself is gone (it
//               waits for every dependent, each blocking).
//   Baseline: a deletecollection of 1,000 like objects by label, until it answers (they are gone).
//
// And the collector's added cost on creates: creates/s of a custom resource, half of them with an
// ownerReference to an owner created before, 32 in flight, through a server whose collector acts
// beside one whose collector does not, in the same run (rounds in turns):
//   off:         the same server with `--enable-garbage-collector=false` (kube-controller-manager's
//                flag), when the binary has that flag: the whole cost (watches, graph, work).
//   not leading: two servers on one etcd binary, each on its own prefix; one leads, the other's
//                Lease is held by the benchmark, so its collector keeps its watches and graph (as
//                every replica does) but never acts: the cost of the collector's work alone.
//
// Run: make build && make bench ONLY=gc [QUICK=1]
import { execFileSync } from 'node:child_process';
import { startEtcd } from '../test/helpers/etcd.js';
import { BIN, type ServerProcess, startServerProcess } from '../test/helpers/server-process.js';
import { type BenchClient, benchClient, installCRD } from './client.js';
import { type Metric, elapsedMs, inFlight, metric, paired, quick, rate, report } from './report.js';
import { formatMicroTime } from '../apimachinery/validation/micro-time.js';

const GROUP = 'gc.bench.example.com';
const NS = 'default';
const N = { dependents: quick ? 200 : 1_000, runs: quick ? 1 : 3 };
const IN_FLIGHT = 32;
const CREATES = { perRound: quick ? 300 : 2_000, rounds: quick ? 1 : 3, owners: 10 };
const GC_FLAG = '--enable-garbage-collector';
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/mini-apiserver-controllers';

async function main(): Promise<void> {
  const metrics = [...(await deletion()), ...(await createCost())];
  report('gc', 'baseline (deletecollection; collector off / not leading)', metrics);
}

/** The deletion numbers: the collector's cascades against one deletecollection of as many objects. */
async function deletion(): Promise<Metric[]> {
  const server = await startServerProcess({ args: ['--log-level', 'warn'] });
  try {
    const c = benchClient(server);
    const owners = await installCRD(c, GROUP, 'owners', 'Owner', { type: 'object' }, NS);
    const deps = await installCRD(c, GROUP, 'dependents', 'Dependent', { type: 'object' }, NS);
    let run = 0;

    /** An owner (unless `owner` is false) and N dependents labelled with the run; their label selector. */
    async function populate(withOwner: boolean): Promise<{ owner: string; selector: string }> {
      const id = `r${run++}`;
      let ref: unknown[] = [];
      if (withOwner) {
        const r = await c.call(
          'POST',
          owners,
          JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Owner', metadata: { name: id } }),
        );
        if (r.status !== 201) throw new Error(`owner ${id}: ${r.status} ${r.body.slice(0, 200)}`);
        const uid = (JSON.parse(r.body) as { metadata: { uid: string } }).metadata.uid;
        ref = [{ apiVersion: `${GROUP}/v1`, kind: 'Owner', name: id, uid, blockOwnerDeletion: true }];
      }
      await inFlight(N.dependents, IN_FLIGHT, async (i) => {
        const body = JSON.stringify({
          apiVersion: `${GROUP}/v1`,
          kind: 'Dependent',
          metadata: { name: `${id}-${i}`, labels: { run: id }, ...(withOwner ? { ownerReferences: ref } : {}) },
        });
        const r = await c.call('POST', deps, body);
        if (r.status !== 201) throw new Error(`dependent ${id}-${i}: ${r.status} ${r.body.slice(0, 200)}`);
      });
      return { owner: id, selector: `run%3D${id}` };
    }

    const until = async (what: string, done: () => Promise<boolean>): Promise<void> => {
      const deadline = Date.now() + 300_000;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const noneLeft = (cl: BenchClient, selector: string) => async () => {
      const r = await cl.call('GET', `${deps}?labelSelector=${selector}&limit=1`);
      return (JSON.parse(r.body) as { items: unknown[] }).items.length === 0;
    };

    const collected = (policy: 'Background' | 'Foreground') => async (): Promise<number> => {
      const { owner, selector } = await populate(true);
      return elapsedMs(async () => {
        const r = await c.call('DELETE', `${owners}/${owner}?propagationPolicy=${policy}`);
        if (r.status !== 200) throw new Error(`delete ${owner}: ${r.status} ${r.body.slice(0, 200)}`);
        if (policy === 'Foreground')
          await until(`owner ${owner} gone`, async () => (await c.call('GET', `${owners}/${owner}`)).status === 404);
        await until(`dependents of ${owner} gone`, noneLeft(c, selector));
      });
    };
    const deleteCollection = async (): Promise<number> => {
      const { selector } = await populate(false);
      return elapsedMs(async () => {
        const r = await c.call('DELETE', `${deps}?labelSelector=${selector}`);
        if (r.status !== 200) throw new Error(`deletecollection: ${r.status} ${r.body.slice(0, 200)}`);
        await until('deletecollection done', noneLeft(c, selector));
      });
    };

    const [bg, bgBase] = await paired(N.runs, collected('Background'), deleteCollection);
    const [fg, fgBase] = await paired(N.runs, collected('Foreground'), deleteCollection);
    c.agent.destroy();
    return [
      metric(
        `ms until ${N.dependents} dependents are gone, Background delete of their owner (vs deletecollection)`,
        bg,
        bgBase,
        'ms',
        'lower',
      ),
      metric(
        `ms until the owner of ${N.dependents} dependents is gone, Foreground delete (vs deletecollection)`,
        fg,
        fgBase,
        'ms',
        'lower',
      ),
    ];
  } finally {
    await server.stop();
  }
}

/** A server to create on: its client, the collections, and owners to name. */
interface CreateTarget {
  c: BenchClient;
  deps: string;
  refs: unknown[][];
}

async function createTarget(server: ServerProcess): Promise<CreateTarget> {
  const c = benchClient(server);
  const owners = await installCRD(c, GROUP, 'owners', 'Owner', { type: 'object' }, NS);
  const deps = await installCRD(c, GROUP, 'dependents', 'Dependent', { type: 'object' }, NS);
  const refs: unknown[][] = [];
  for (let i = 0; i < CREATES.owners; i++) {
    const r = await c.call(
      'POST',
      owners,
      JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Owner', metadata: { name: `owner-${i}` } }),
    );
    if (r.status !== 201) throw new Error(`owner-${i}: ${r.status} ${r.body.slice(0, 200)}`);
    const uid = (JSON.parse(r.body) as { metadata: { uid: string } }).metadata.uid;
    refs.push([
      { apiVersion: `${GROUP}/v1`, kind: 'Owner', name: `owner-${i}`, uid, controller: true, blockOwnerDeletion: true },
    ]);
  }
  return { c, deps, refs };
}

/** Creates/s of one round on `t`: CREATES.perRound dependents, every other one owned. */
function createRound(t: CreateTarget, label: string): () => Promise<number> {
  let round = 0;
  return async () => {
    const id = `${label}-${round++}`;
    return rate(CREATES.perRound, () =>
      inFlight(CREATES.perRound, IN_FLIGHT, async (i) => {
        const owned = i % 2 === 0 ? { ownerReferences: t.refs[i % t.refs.length] } : {};
        const r = await t.c.call(
          'POST',
          t.deps,
          JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Dependent', metadata: { name: `${id}-${i}`, ...owned } }),
        );
        if (r.status !== 201) throw new Error(`create ${id}-${i}: ${r.status} ${r.body.slice(0, 200)}`);
      }),
    );
  };
}

/** Whether the built binary can run without its collector (the flag the integrator is to add). */
function hasCollectorFlag(): boolean {
  try {
    return execFileSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).includes(GC_FLAG);
  } catch {
    return false;
  }
}

/** metav1.MicroTime now, as Go writes it. */
const microTimeNow = (): string => formatMicroTime(Date.now() * 1000);

/**
 * Takes the controllers' Lease from `t`'s server for an hour: the server's next election round
 * finds it held and stops acting (its collector keeps watching). Retried over the server's renewals.
 */
async function holdLease(t: CreateTarget): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const got = await t.c.call('GET', LEASE);
    if (got.status !== 200) throw new Error(`lease: ${got.status} ${got.body.slice(0, 200)}`);
    const lease = JSON.parse(got.body) as { spec: Record<string, unknown> };
    lease.spec = {
      ...lease.spec,
      holderIdentity: 'gc-bench',
      leaseDurationSeconds: 3600,
      acquireTime: microTimeNow(),
      renewTime: microTimeNow(),
    };
    const put = await t.c.call('PUT', LEASE, JSON.stringify(lease));
    if (put.status === 200) break;
    if (put.status !== 409 || attempt > 20) throw new Error(`lease: ${put.status} ${put.body.slice(0, 200)}`);
  }
  // Past one retry period (client-go's 2 s, with jitter) the server has read it and stood down.
  await new Promise((r) => setTimeout(r, 3_000));
  const held = JSON.parse((await t.c.call('GET', LEASE)).body) as { spec: { holderIdentity?: string } };
  if (held.spec.holderIdentity !== 'gc-bench')
    throw new Error(`the server took the lease back: ${held.spec.holderIdentity}`);
}

async function createCost(): Promise<Metric[]> {
  const out: Metric[] = [];
  const name = `creates/s, ${CREATES.perRound} custom resources, half with an ownerReference`;
  if (hasCollectorFlag()) {
    const on = await startServerProcess({ args: ['--log-level', 'warn'] });
    const off = await startServerProcess({ args: ['--log-level', 'warn', `${GC_FLAG}=false`] });
    try {
      const [tOn, tOff] = [await createTarget(on), await createTarget(off)];
      const [ours, base] = await paired(CREATES.rounds, createRound(tOn, 'on'), createRound(tOff, 'off'));
      out.push(metric(`${name}: collector running (vs off)`, ours, base, 'ops/s', 'higher'));
      for (const t of [tOn, tOff]) t.c.agent.destroy();
    } finally {
      await Promise.all([on.stop(), off.stop()]);
    }
  } else {
    console.log(
      `(this binary has no ${GC_FLAG}: the collector cannot be turned off, so "running vs off" is not measured)`,
    );
  }
  const etcd = await startEtcd();
  try {
    const leading = await startServerProcess({
      args: ['--log-level', 'warn', '--etcd-servers', etcd.endpoint, '--etcd-prefix', '/gc-bench-leading'],
    });
    const idle = await startServerProcess({
      args: ['--log-level', 'warn', '--etcd-servers', etcd.endpoint, '--etcd-prefix', '/gc-bench-not-leading'],
    });
    try {
      const [tLeading, tIdle] = [await createTarget(leading), await createTarget(idle)];
      await holdLease(tIdle);
      const [ours, base] = await paired(CREATES.rounds, createRound(tLeading, 'leading'), createRound(tIdle, 'idle'));
      out.push(metric(`${name}, etcd: collector leading (vs not leading)`, ours, base, 'ops/s', 'higher'));
      for (const t of [tLeading, tIdle]) t.c.agent.destroy();
    } finally {
      await Promise.all([leading.stop(), idle.stop()]);
    }
  } finally {
    await etcd.destroy();
  }
  return out;
}

await main();
