// bench/crds: the real-world CRDs of ../shared/realworld/crds installed as people install them,
// issue 26's four figures, each beside a baseline from the same run.
//
//   apply    one `kubectl apply --server-side` of the whole corpus (every project's folder but
//            gateway-api-standard, whose 10 CRDs gateway-api-experimental holds again: 102 CRDs)
//            into a new server (the built binary, SQLite), until kubectl exits. Baseline: kubectl's
//            own floor, the same apply against a server that answers each apply at once with the
//            applied object (instantServer): what kubectl alone costs, the target's included.
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
import type { IncomingMessage } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
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

/** The whole body of a request or response. */
async function bodyOf(m: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of m) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A server that answers every apply (PATCH) at once with 201 and the applied object, a
 * resourceVersion and uid added (no managedFields, no status: smaller than a real reply), and
 * passes every other request (discovery, OpenAPI) to `s`. It serves `s`'s own certificate, so
 * kubectl trusts it through the same kubeconfig. The Node code answering shares the two cores
 * with kubectl as the real server does.
 */
async function instantServer(s: ServerProcess): Promise<{ url: string; close(): void }> {
  const pki = join(s.dataDir, 'pki');
  let applied = 0;
  const server = createServer(
    { cert: readFileSync(join(pki, 'apiserver.crt')), key: readFileSync(join(pki, 'apiserver.key')) },
    (req, res) => {
      (async () => {
        const body = await bodyOf(req);
        if (req.method === 'PATCH') {
          const obj = JSON.parse(body.toString('utf8')) as { metadata: Record<string, unknown> };
          applied++;
          obj.metadata = { ...obj.metadata, uid: `instant-${applied}`, resourceVersion: String(applied) };
          const out = JSON.stringify(obj);
          res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
          res.end(out);
          return;
        }
        const upstream = httpsRequest(
          `${s.url}${req.url}`,
          { method: req.method, headers: { ...req.headers, host: new URL(s.url).host }, ca: s.ca },
          (r) => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            r.pipe(res);
          },
        );
        upstream.on('error', (e) => res.destroy(e));
        upstream.end(body);
      })().catch((err: unknown) => res.destroy(err instanceof Error ? err : undefined));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

interface Round {
  applyMs: number;
  floorMs: number;
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
    const files = folders.flatMap((f) => ['-f', f]);
    const cpu = cpuSeconds(pid);
    const apply = await s.kubectl(['apply', '--server-side', ...files], { timeoutMs: 600_000 });
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
    // Last: the real apply meets a server nobody asked anything yet, and the OpenAPI figures
    // documents nobody built (kubectl's GET /openapi/v3 hashes every group version's). Its
    // discovery then lists the corpus's groups too: a little more for kubectl to read.
    const instant = await instantServer(s);
    const floor = await s
      .kubectl(['--server', instant.url, 'apply', '--server-side', ...files], {
        timeoutMs: 600_000,
      })
      .finally(() => instant.close());
    if (floor.code !== 0 || [...floor.stdout.matchAll(/ serverside-applied$/gm)].length !== applied)
      throw new Error(`kubectl apply to the instant server: ${floor.code} ${floor.stderr.slice(0, 300)}`);
    return {
      applyMs: apply.durationMs,
      floorMs: floor.durationMs,
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
      `kubectl apply --server-side of the corpus, ${crds} CRDs (vs the same apply to a server answering at once)`,
      'applyMs',
      'floorMs',
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
