// bench/crds: the real-world CRDs of ../shared/realworld/crds installed as people install them,
// issue 26's four figures, each beside a baseline from the same run.
//
//   apply    one `kubectl apply --server-side` of the whole corpus (every project's folder but
//            gateway-api-standard, whose 10 CRDs gateway-api-experimental holds again: 102 CRDs)
//            into a new server (the built binary, SQLite), until kubectl exits. Baseline: kubectl
//            reading and decoding the same files, to the same server, sending nothing but its
//            discovery (`create --dry-run=client`): the share of the figure that is kubectl's own.
//   RSS      the server's resident memory (/proc/<pid>/status) a second after that apply.
//            Baseline: the same server before it.
//   v3       the first GET of /openapi/v3/apis/monitoring.coreos.com/v1 after the apply (the
//            largest group version document of the corpus, 1.3 MB): built on that request.
//            Baseline: a second GET of it (served from the bytes kept).
//   v2       then the first GET of /openapi/v2 (every group version, 11 MB). Baseline: a second GET.
//
// A new server per round, medians of the rounds. Without ../shared/realworld, one line says so
// and nothing runs.
//
// Run: make build && make bench ONLY=crds [QUICK=1]
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, type ServerProcess, startServerProcess } from '../test/helpers/server-process.js';
import { type Metric, median, metric, quick, report, verdict } from './report.js';

const CORPUS = join(REPO_ROOT, '..', 'shared', 'realworld', 'crds');
/** Its CRDs are gateway-api-experimental's too, which is a superset (applying it over standard is an upgrade). */
const SUPERSEDED = 'gateway-api-standard';
const V3_GROUP_VERSION = 'apis/monitoring.coreos.com/v1';
const RUNS = quick ? 1 : 3;
const TARGET = { applyMs: 3000, rssMiB: 200, v3Ms: 300, v2Ms: 1000 };

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** The project folders applied, and how many CRDs they hold. */
function corpus(): { folders: string[]; crds: number } {
  const folders = readdirSync(CORPUS, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== SUPERSEDED)
    .map((d) => join(CORPUS, d.name))
    .sort();
  let crds = 0;
  for (const folder of folders)
    for (const file of readdirSync(folder).filter((f) => /\.ya?ml$/.test(f)))
      crds += readFileSync(join(folder, file), 'utf8')
        .split(/^---[ \t]*$/m)
        .filter((doc) => /^kind:\s*CustomResourceDefinition\s*$/m.test(doc)).length;
  return { folders, crds };
}

const rssMiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** User + system CPU seconds of a process so far (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Milliseconds until the whole body of a GET has arrived. */
async function timedGet(s: ServerProcess, path: string): Promise<number> {
  const start = performance.now();
  const r = await s.request(path, { headers: { accept: 'application/json' }, timeoutMs: 60_000 });
  const ms = performance.now() - start;
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 300)}`);
  return ms;
}

interface Round {
  applyMs: number;
  kubectlAloneMs: number;
  applied: number;
  serverCpuS: number;
  idleMiB: number;
  rssMiB: number;
  v3Ms: number;
  v3AgainMs: number;
  v2Ms: number;
  v2AgainMs: number;
}

async function round(folders: readonly string[]): Promise<Round> {
  const s = await startServerProcess({ args: ['--log-level', 'warn'] });
  try {
    const pid = s.child.pid!;
    const idleMiB = rssMiB(pid);
    // kubectl's own share: reading and decoding the same files, nothing sent but its discovery.
    const alone = await s.kubectl(
      ['create', '--dry-run=client', '--validate=false', '-o', 'name', ...folders.flatMap((f) => ['-f', f])],
      { timeoutMs: 300_000 },
    );
    if (alone.code !== 0) throw new Error(`kubectl create --dry-run=client: ${alone.stderr.slice(0, 300)}`);
    const cpu = cpuSeconds(pid);
    const apply = await s.kubectl(['apply', '--server-side', ...folders.flatMap((f) => ['-f', f])], {
      timeoutMs: 600_000,
    });
    const serverCpuS = cpuSeconds(pid) - cpu;
    const applied = [...apply.stdout.matchAll(/ serverside-applied$/gm)].length;
    if (apply.code !== 0)
      console.log(`  kubectl apply exited ${apply.code}: ${apply.stderr.trim().split('\n')[0]?.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 1000));
    const rss = rssMiB(pid);
    const v3Ms = await timedGet(s, `/openapi/v3/${V3_GROUP_VERSION}`);
    const v3AgainMs = await timedGet(s, `/openapi/v3/${V3_GROUP_VERSION}`);
    const v2Ms = await timedGet(s, '/openapi/v2');
    const v2AgainMs = await timedGet(s, '/openapi/v2');
    return {
      applyMs: apply.durationMs,
      kubectlAloneMs: alone.durationMs,
      applied,
      serverCpuS,
      idleMiB,
      rssMiB: rss,
      v3Ms,
      v3AgainMs,
      v2Ms,
      v2AgainMs,
    };
  } finally {
    await s.stop();
  }
}

async function main(): Promise<void> {
  if (!existsSync(CORPUS)) {
    console.log(`${CORPUS} does not exist: no bench/crds (the real-world CRDs are in ../shared/realworld)`);
    return;
  }
  const { folders, crds } = corpus();
  console.log(`load average at start: ${load()}`);
  const rounds: Round[] = [];
  for (let i = 0; i < RUNS; i++) rounds.push(await round(folders));
  const m = (f: (r: Round) => number): number => median(rounds.map(f));
  const applied = Math.min(...rounds.map((r) => r.applied));
  if (applied < crds) console.log(`  only ${applied} of the ${crds} CRDs were applied in some round`);
  console.log(
    `  apply: ${crds} CRDs; server CPU ${m((r) => r.serverCpuS).toFixed(2)} s during it (median); rounds: ${rounds
      .map((r) => `${r.applyMs.toFixed(0)} ms`)
      .join(', ')}`,
  );
  const row = (name: string, ours: keyof Round, baseline: keyof Round, unit: 'ms' | 'MiB', target: number): Metric => {
    const value = m((r) => r[ours]);
    return {
      ...metric(
        name,
        value,
        m((r) => r[baseline]),
        unit,
        'lower',
      ),
      target: verdict(`≤ ${target} ${unit}`, value <= target),
    };
  };
  report('crds', 'baseline', [
    row(
      `kubectl apply --server-side of the corpus, ${crds} CRDs (vs kubectl reading the same files, sending none)`,
      'applyMs',
      'kubectlAloneMs',
      'ms',
      TARGET.applyMs,
    ),
    row('server RSS after it (vs the same server before)', 'rssMiB', 'idleMiB', 'MiB', TARGET.rssMiB),
    row(`first GET /openapi/v3/${V3_GROUP_VERSION} (vs a second GET)`, 'v3Ms', 'v3AgainMs', 'ms', TARGET.v3Ms),
    row('first GET /openapi/v2 (vs a second GET)', 'v2Ms', 'v2AgainMs', 'ms', TARGET.v2Ms),
  ]);
  console.log(`${RUNS} round(s), medians; load average at end: ${load()}`);
}

await main();
