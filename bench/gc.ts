// bench/gc: the garbage collector deleting an owner's dependents, beside the same number deleted by
// one deletecollection in the same run (the server does the same deletes, without the collector's
// watch, graph and live reads).
//
//   background: ms from DELETE of an owner with 1,000 dependents until the last dependent is gone.
//   foreground: ms from DELETE ?propagationPolicy=Foreground until the owner itself is gone (it
//               waits for every dependent, each blocking).
//   Baseline: a deletecollection of 1,000 like objects by label, until it answers (they are gone).
//
// Run: make build && make bench ONLY=gc [QUICK=1]
import { startServerProcess } from '../test/helpers/server-process.js';
import { type BenchClient, benchClient, installCRD } from './client.js';
import { elapsedMs, inFlight, metric, paired, quick, report } from './report.js';

const GROUP = 'gc.bench.example.com';
const NS = 'default';
const N = { dependents: quick ? 200 : 1_000, runs: quick ? 1 : 3 };
const IN_FLIGHT = 32;

async function main(): Promise<void> {
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
        const r = await c.call('POST', owners, JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Owner', metadata: { name: id } }));
        if (r.status !== 201) throw new Error(`owner ${id}: ${r.status} ${r.body.slice(0, 200)}`);
        const uid = (JSON.parse(r.body) as { metadata: { uid: string } }).metadata.uid;
        ref = [{ apiVersion: `${GROUP}/v1`, kind: 'Owner', name: id, uid, blockOwnerDeletion: true }];
      }
      await inFlight(N.dependents, IN_FLIGHT, async (i) => {
        const body = JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Dependent', metadata: { name: `${id}-${i}`, labels: { run: id }, ...(withOwner ? { ownerReferences: ref } : {}) } });
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
        if (policy === 'Foreground') await until(`owner ${owner} gone`, async () => (await c.call('GET', `${owners}/${owner}`)).status === 404);
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
    report('gc', 'deletecollection', [
      metric(`ms until ${N.dependents} dependents are gone, Background delete of their owner`, bg, bgBase, 'ms', 'lower'),
      metric(`ms until the owner of ${N.dependents} dependents is gone, Foreground delete`, fg, fgBase, 'ms', 'lower'),
    ]);
    c.agent.destroy();
  } finally {
    await server.stop();
  }
}

await main();
