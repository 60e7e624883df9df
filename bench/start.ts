// bench/start: how long until a server started in process answers, beside a bare node:https server.
//
//   startServer({ storage: 'memory' }) until it resolves (serving, ready) and once more until
//   /readyz answers, modules already loaded; beside https.createServer().listen(). The binary's
//   restart to /readyz is bench/http's (issue 26's table).
//
// Rounds in turns (report.ts's `paired`), medians. Issue 16 asks for an in-process start in 50 ms
// (envtest: 7 to 15 s).
//
// Run: make build && make bench ONLY=start [QUICK=1]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../server/index.js';
import { silentLogger } from '../apimachinery/log.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { untilReady } from './bare.js';
import { type Metric, metric, paired, quick, report } from './report.js';

const RUNS = quick ? 3 : 11;

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
    // The modules are loaded (imported above and warmed by a first start).
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
