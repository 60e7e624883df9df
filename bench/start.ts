// bench/start: how long until the server answers, beside a bare node:https server started the same way.
//
//   A process: `bin/mini-apiserver` on a data dir that already exists (a restart: nothing to
//   generate), from spawn to the first 200 of /readyz; beside a bare node:https server in its own
//   process with the same certificate, from spawn to the first 200 of the same path, polled the same way.
//   In process: startServer({ storage: 'memory' }) until it resolves (serving, ready) and once more
//   until /readyz answers, modules already loaded; beside https.createServer().listen().
//
// Rounds in turns (report.ts's `paired`), medians. Issue 16 asks for a process ready in 0.2 s and an
// in-process start in 50 ms (envtest: 7 to 15 s).
//
// Run: make build && make bench ONLY=start [QUICK=1]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/index.js';
import { silentLogger } from '../apimachinery/log.js';
import { BIN, startServerProcess } from '../test/helpers/server-process.js';
import { type Metric, metric, paired, quick, report } from './report.js';

const RUNS = quick ? 3 : 11;

const BARE_SOURCE = `
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
const [cert, key] = process.argv.slice(1);
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
server.listen(0, '127.0.0.1', () => process.stdout.write('serving on https://127.0.0.1:' + server.address().port + '\\n'));
`;

/** Status of GET url/readyz, or 0 when nothing answers yet. */
function readyz(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(`${url}/readyz`, { ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

async function untilReady(url: string, ca: string): Promise<void> {
  while ((await readyz(url, ca)) !== 200) await new Promise((r) => setTimeout(r, 1));
}

/** Milliseconds from spawning `args` to the first 200 of /readyz at the URL it prints. */
async function processStart(args: string[], ca: string): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /serving on (https:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    });
    await untilReady(url, ca);
    return performance.now() - start;
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  // The data dir made once by a first start, as a restart finds it.
  const dataDir = mkdtempSync(join(tmpdir(), 'mini-apiserver-start-'));
  try {
    const first = await startServerProcess({ dataDir, args: ['--log-level', 'warn'] });
    const ca = first.ca;
    await first.stop();
    const pki = join(dataDir, 'pki');
    const ours = [BIN, '--data-dir', dataDir, '--secure-port', '0', '--log-level', 'warn'];
    const bare = ['--input-type=module', '-e', BARE_SOURCE, join(pki, 'apiserver.crt'), join(pki, 'apiserver.key')];
    // Warm the page cache and the compile caches of both.
    await processStart(ours, ca);
    await processStart(bare, ca);

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
    await row(
      'process start to /readyz 200, existing data dir',
      () => processStart(ours, ca),
      () => processStart(bare, ca),
      'bare node:https process, same certificate',
    );

    // In process: the modules are loaded (imported above and warmed by a first start).
    const cert = readFileSync(join(pki, 'apiserver.crt'));
    const key = readFileSync(join(pki, 'apiserver.key'));
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
      "in-process startServer({ storage: 'memory' }) resolved",
      () => inProcess(false),
      () => bareInProcess(false),
      'https.createServer().listen()',
    );
    await row(
      "in-process startServer({ storage: 'memory' }) to /readyz 200",
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
