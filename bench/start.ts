// bench/start: how long until a server answers, cold and warm, beside a bare node:https server.
// Cold is what a newcomer meets first: a fresh process, nothing of ours loaded or compiled yet (the
// disk cache warm, as on any second run); warm is what a test suite meets, modules loaded.
//
//   Cold, the binary: `bin/mini-apiserver` on an empty data dir (a first start: CA, serving
//   certificate, keys and token generated), from spawn to the first 200 of /readyz; beside a bare
//   node:https process with a certificate (bench/bare.ts), polled the same way.
//   Cold, the package: a fresh node process imports 'mini-apiserver' (dist/server/index.js, what
//   the package's exports name) and calls startServer({ storage: 'memory' }): the import, the first
//   startServer until it resolves, and until /readyz answers; beside the same process importing
//   node:https and listening.
//   Warm, in process: startServer({ storage: 'memory' }) until it resolves (serving, ready) and
//   once more until /readyz answers, modules already loaded; beside https.createServer().listen().
//   The binary's warm restart to /readyz is bench/http's (issue 26's table).
//
// Rounds in turns (report.ts's `paired`), medians. Issue 16 asks for an in-process start in 50 ms
// (envtest: 7 to 15 s).
//
// Run: make build && make bench ONLY=start [QUICK=1]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer } from '../server/index.js';
import { silentLogger } from '../apimachinery/log.js';
import { BIN, REPO_ROOT, startServerProcess } from '../test/helpers/server-process.js';
import { bareArgs, processStart, untilReady } from './bare.js';
import { type Metric, metric, paired, percentile, quick, report } from './report.js';

const RUNS = quick ? 3 : 11;

// A fresh process's cold start: the import, then startServer (or node:https) until it resolves,
// then until /readyz answers; one JSON line of the three, in milliseconds from before the import.
const COLD_SOURCE = `
import { readFileSync } from 'node:fs';
const [what, target, cert, key] = process.argv.slice(1);
const t0 = performance.now();
const https = await import('node:https');
const m = what === 'ours' ? await import(target) : undefined;
const imported = performance.now();
let url, close;
if (m) {
  const s = await m.startServer({ storage: 'memory', logger: m.silentLogger });
  url = s.url;
  close = () => s.close();
} else {
  const server = https.createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_q, r) => r.writeHead(200).end('ok'));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  url = 'https://127.0.0.1:' + server.address().port;
  close = () => new Promise((r) => server.close(r));
}
const started = performance.now();
const ok = () => new Promise((resolve) => {
  const req = https.request(url + '/readyz', { rejectUnauthorized: false, agent: false }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode === 200)); });
  req.on('error', () => resolve(false));
  req.end();
});
while (!(await ok())) await new Promise((r) => setTimeout(r, 1));
const ready = performance.now();
await close();
process.stdout.write(JSON.stringify({ importMs: imported - t0, startMs: started - imported, readyMs: ready - imported }) + '\\n');
`;

interface ColdStart {
  importMs: number;
  startMs: number;
  readyMs: number;
}

/** One fresh process: ours imports the package's entry point, the baseline node:https alone. */
function coldStart(what: 'ours' | 'bare', cert: string, key: string): Promise<ColdStart> {
  const entry = pathToFileURL(join(REPO_ROOT, 'dist', 'server', 'index.js')).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', COLD_SOURCE, what, entry, cert, key], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ColdStart) : reject(new Error(`cold start (${what}) exited ${code}`)),
    ),
  );
}

async function main(): Promise<void> {
  // The bare server's certificate and key: the ones a first start of the binary made.
  const dataDir = mkdtempSync(join(tmpdir(), 'mini-apiserver-start-'));
  try {
    const first = await startServerProcess({ dataDir, args: ['--log-level', 'warn'] });
    const ca = first.ca;
    await first.stop();
    const pki = join(dataDir, 'pki');

    const metrics: Metric[] = [];
    const row = async (
      name: string,
      a: () => Promise<number>,
      b: () => Promise<number>,
      baseline: string,
    ): Promise<void> => {
      const [x, y] = await paired(RUNS, a, b);
      metrics.push(metric(`${name} (vs ${baseline})`, x, y, 'ms', 'lower'));
      console.log(`  ${name}: ${x.toFixed(0)} vs ${y.toFixed(0)} ms`);
    };
    // Cold, the binary: a first start on an empty data dir each time (the CA is new: any is taken).
    const fresh: string[] = [];
    const emptyDir = (): string[] => {
      const dir = mkdtempSync(join(tmpdir(), 'mini-apiserver-cold-'));
      fresh.push(dir);
      return [BIN, '--data-dir', dir, '--secure-port', '0', '--log-level', 'warn'];
    };
    const bare = bareArgs(dataDir, {});
    await row(
      'cold: process start to /readyz 200, empty data dir (first start)',
      async () => (await processStart(emptyDir(), undefined)).ms,
      async () => (await processStart(bare, undefined)).ms,
      'bare node:https process, a certificate',
    );
    for (const dir of fresh) rmSync(dir, { recursive: true, force: true });

    // Cold, the package: what a newcomer's first script sees, in a fresh process each time.
    const certFile = join(pki, 'apiserver.crt');
    const keyFile = join(pki, 'apiserver.key');
    const cold: Record<'ours' | 'bare', ColdStart[]> = { ours: [], bare: [] };
    for (let i = 0; i < RUNS; i++) {
      cold.ours.push(await coldStart('ours', certFile, keyFile));
      cold.bare.push(await coldStart('bare', certFile, keyFile));
    }
    const median = (runs: ColdStart[], field: keyof ColdStart): number =>
      percentile(
        runs.map((r) => r[field]).sort((x, y) => x - y),
        50,
      );
    for (const [field, name, baseline] of [
      ['importMs', "cold: import 'mini-apiserver' in a fresh process", "import 'node:https'"],
      [
        'startMs',
        "cold: first startServer({ storage: 'memory' }) resolved, fresh process",
        'https.createServer().listen()',
      ],
      [
        'readyMs',
        "cold: first startServer({ storage: 'memory' }) to /readyz 200, fresh process",
        'https.createServer().listen() to 200',
      ],
    ] as const) {
      const [x, y] = [median(cold.ours, field), median(cold.bare, field)];
      metrics.push(metric(`${name} (vs ${baseline})`, x, y, 'ms', 'lower'));
      console.log(`  ${name}: ${x.toFixed(0)} vs ${y.toFixed(1)} ms`);
    }

    // Warm: the modules are loaded (imported above and warmed by a first start).
    const cert = readFileSync(certFile);
    const key = readFileSync(keyFile);
    const inProcess = async (untilReadyz: boolean): Promise<number> => {
      const start = performance.now();
      const s = await startServer({ storage: 'memory', logger: silentLogger });
      if (untilReadyz) await untilReady(s.url, s.caCert);
      const ms = performance.now() - start;
      await s.close();
      return ms;
    };
    const bareInProcess = async (untilReadyz: boolean): Promise<number> => {
      const start = performance.now();
      const server: Server = createServer({ cert, key }, (_req, res) => res.writeHead(200).end('ok'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const address = server.address();
      if (untilReadyz && address && typeof address === 'object')
        await untilReady(`https://localhost:${address.port}`, ca);
      const ms = performance.now() - start;
      await new Promise((r) => server.close(r));
      return ms;
    };
    await inProcess(true);
    await row(
      "warm: in-process startServer({ storage: 'memory' }) resolved",
      () => inProcess(false),
      () => bareInProcess(false),
      'https.createServer().listen()',
    );
    await row(
      "warm: in-process startServer({ storage: 'memory' }) to /readyz 200",
      () => inProcess(true),
      () => bareInProcess(true),
      'https.createServer().listen() to 200',
    );
    report('start', 'baseline', metrics);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
