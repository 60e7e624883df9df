// bench/apply: server-side apply beside a JSON merge patch doing the same change, in the same run.
//
//   unchanged: applies/s of a ~1 KiB custom resource's unchanged configuration (the steady state
//              of a controller or GitOps tool re-applying), beside merge patches/s of the same spec.
//   changed:   applies/s that change one field each time, beside merge patches/s changing it.
// Apply forces (as controllers do: the merge patches take the fields between runs). Both through a real server process (the built binary, SQLite store, HTTPS, 32 in flight), over
// the same objects, runs taken in turns, medians. Target: apply within 2x of merge patch (ratio ≥ 0.5).
//
// Run: make build && make bench ONLY=apply [QUICK=1]
import { startServerProcess } from '../test/helpers/server-process.js';
import { benchClient, installCRD, type BenchClient } from './client.js';
import { inFlight, metric, paired, quick, rate, report, type Metric } from './report.js';

const N = { objects: 200, writes: quick ? 600 : 2_000, runs: quick ? 3 : 7, warm: 600 };
const IN_FLIGHT = 32;
const GROUP = 'bench.example.com';
const NS = 'default';
const TARGET = 0.5;

const SPEC_SCHEMA = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, port: { type: 'integer' }, protocol: { type: 'string' } },
      },
    },
    notes: { type: 'string' },
  },
};

/** A spec of about 1 KiB: a keyed list, a map and a string. */
function spec(replicas: number): Record<string, unknown> {
  return {
    replicas,
    labels: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`label-${i}`, `value-${i}`])),
    ports: Array.from({ length: 8 }, (_, i) => ({ name: `port-${i}`, port: 8000 + i, protocol: 'TCP' })),
    notes: 'x'.repeat(300),
  };
}

const names = Array.from({ length: N.objects }, (_, i) => `doc-${i}`);

async function writes(
  c: BenchClient,
  path: string,
  kind: 'apply' | 'merge',
  changing: boolean,
  round: { n: number },
): Promise<number> {
  return rate(N.writes, () =>
    inFlight(N.writes, IN_FLIGHT, async (i) => {
      const name = names[i % names.length]!;
      const replicas = changing ? (round.n++ % 1000) + 2 : 1;
      const r =
        kind === 'apply'
          ? await c.call(
              'PATCH',
              `${path}/${name}?fieldManager=bench-apply&force=true`,
              JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Doc', metadata: { name }, spec: spec(replicas) }),
              'application/apply-patch+yaml',
            )
          : await c.call(
              'PATCH',
              `${path}/${name}?fieldManager=bench-merge`,
              JSON.stringify({ spec: spec(replicas) }),
              'application/merge-patch+json',
            );
      if (r.status !== 200) throw new Error(`${kind} ${name}: ${r.status} ${r.body.slice(0, 200)}`);
    }),
  );
}

async function main(): Promise<void> {
  const server = await startServerProcess();
  try {
    const c = benchClient(server);
    const path = await installCRD(c, GROUP, 'docs', 'Doc', SPEC_SCHEMA, NS);
    await inFlight(names.length, IN_FLIGHT, async (i) => {
      const name = names[i]!;
      const r = await c.call(
        'PATCH',
        `${path}/${name}?fieldManager=bench`,
        JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Doc', metadata: { name }, spec: spec(1) }),
        'application/apply-patch+yaml',
      );
      if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body.slice(0, 200)}`);
    });
    const round = { n: 0 };
    // Warm both paths (the server's JIT), then measure.
    await writes(c, path, 'apply', true, round);
    await writes(c, path, 'merge', true, round);
    const metrics: Metric[] = [];
    // Unchanged first: every object holds spec(1) again after the warm-up's changing writes.
    await writes(c, path, 'apply', false, round);
    const [applyUnchanged, mergeUnchanged] = await paired(
      N.runs,
      () => writes(c, path, 'apply', false, round),
      () => writes(c, path, 'merge', false, round),
    );
    metrics.push(
      metric(
        'unchanged 1 KiB object: apply vs merge patch writes/s',
        applyUnchanged,
        mergeUnchanged,
        'writes/s',
        'higher',
      ),
    );
    const [applyChanged, mergeChanged] = await paired(
      N.runs,
      () => writes(c, path, 'apply', true, round),
      () => writes(c, path, 'merge', true, round),
    );
    metrics.push(
      metric('one field changed: apply vs merge patch writes/s', applyChanged, mergeChanged, 'writes/s', 'higher'),
    );
    c.agent.destroy();
    report('apply', 'merge patch', metrics);
    const worst = Math.min(applyUnchanged / mergeUnchanged, applyChanged / mergeChanged);
    console.log(
      `apply runs at ${(worst * 100).toFixed(0)}% of merge patch at worst (target: at least ${TARGET * 100}%, i.e. within 2x)`,
    );
  } finally {
    await server.stop();
  }
}

await main();
