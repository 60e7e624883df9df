// bench/http: what the full request path costs over HTTPS itself, in the same run.
//
//   GETs of one custom resource (a consistent read, and resourceVersion=0 from the watch cache),
//   and GETs of /version: the built binary (SQLite store) beside a bare node:https server in its
//   own process, with the same certificate and key, answering the same bytes (captured from ours),
//   driven by the same client (bench/client.ts: keep-alive, the admin token, 32 in flight).
//   Creates of a small custom resource: beside that bare server answering a create's bytes, and
//   beside the raw durable write of the same stored bytes (better-sqlite3, WAL, synchronous=FULL,
//   one row per transaction: what SqliteStorage's durability costs at the least). With `etcd` on
//   PATH (test/helpers/etcd.ts starts one), creates through a server on --etcd-servers beside the
//   etcd3 client's create transaction of the same bytes, and the 99th percentile of each create's
//   latency on both sides (over every round).
//
// Rounds are taken in turns (report.ts's `paired`), medians. Not asserted anywhere: issue 16 asks
// for these numbers side by side.
//
// Run: make build && make bench ONLY=http [QUICK=1]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process.js';
import { type EtcdProcess, startEtcd } from '../test/helpers/etcd.js';
import { type BenchClient, benchClient, installCRD } from './client.js';
import { type Metric, elapsedMs, inFlight, metric, paired, quick, rate, report } from './report.js';

const GROUP = 'http.bench.example.com';
const PLURAL = 'widgets';
const KIND = 'Widget';
const NS = 'default';
const N = {
  gets: quick ? 1_000 : 5_000,
  creates: quick ? 300 : 2_000,
  latency: quick ? 200 : 1_000,
  runs: quick ? 2 : 5,
};
const IN_FLIGHT = 32;
const SPEC_SCHEMA = { type: 'object', properties: { size: { type: 'integer' }, color: { type: 'string' } } };

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const body = (name: string, i: number): string =>
  JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: KIND, metadata: { name }, spec: { size: i, color: 'blue' } });

interface Canned {
  status: number;
  contentType: string;
  body: string;
}

/**
 * The bare server: node:https in its own process (as ours is), the same key and certificate,
 * answering `METHOD path` from `canned` after reading the whole request body, 404 otherwise.
 */
const BARE_SOURCE = `
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
const [cert, key, canned] = process.argv.slice(1);
const routes = new Map(Object.entries(JSON.parse(readFileSync(canned, 'utf8'))).map(([k, v]) => [k, { ...v, bytes: Buffer.from(v.body) }]));
const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const r = routes.get(req.method + ' ' + req.url);
    if (!r) { res.writeHead(404).end(); return; }
    res.writeHead(r.status, { 'content-type': r.contentType, 'content-length': r.bytes.length });
    res.end(r.bytes);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

interface Bare {
  url: string;
  child: ChildProcess;
}

async function startBare(dataDir: string, canned: Record<string, Canned>): Promise<Bare> {
  const file = join(dataDir, 'bare-routes.json');
  writeFileSync(file, JSON.stringify(canned));
  const pki = join(dataDir, 'pki');
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', BARE_SOURCE, join(pki, 'apiserver.crt'), join(pki, 'apiserver.key'), file],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url: `https://127.0.0.1:${port}`, child };
}

/** GETs/s of `path`, `N.gets` of them, IN_FLIGHT at once. */
function gets(c: BenchClient, path: string): () => Promise<number> {
  return () =>
    rate(N.gets, () =>
      inFlight(N.gets, IN_FLIGHT, async () => {
        const r = await c.call('GET', path);
        if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 200)}`);
      }),
    );
}

/** Median milliseconds of one GET of `path`, one at a time. */
function latency(c: BenchClient, path: string): () => Promise<number> {
  return async () => {
    const ms: number[] = [];
    for (let i = 0; i < N.latency; i++) {
      const start = performance.now();
      const r = await c.call('GET', path);
      ms.push(performance.now() - start);
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status}`);
    }
    return ms.sort((a, b) => a - b)[Math.floor((ms.length - 1) / 2)]!;
  };
}

let round = 0;
/** Runs `op`, pushing the milliseconds it took onto `into` when given. */
async function timed(into: number[] | undefined, op: () => Promise<void>): Promise<void> {
  const ms = await elapsedMs(op);
  into?.push(ms);
}

const p99 = (ms: number[]): number => [...ms].sort((a, b) => a - b)[Math.ceil(ms.length * 0.99) - 1]!;

/** Creates/s of `N.creates` custom resources with fresh names into `path`; each one's milliseconds onto `latencies`. */
function creates(c: BenchClient, path: string, label: string, latencies?: number[]): () => Promise<number> {
  return () => {
    const id = `${label}-${round++}`;
    return rate(N.creates, () =>
      inFlight(N.creates, IN_FLIGHT, (i) =>
        timed(latencies, async () => {
          const r = await c.call('POST', path, body(`${id}-${i}`, i));
          if (r.status !== 201) throw new Error(`create ${id}-${i}: ${r.status} ${r.body.slice(0, 200)}`);
        }),
      ),
    );
  };
}

/** The raw durable write of SQLite: one INSERT per transaction, WAL, synchronous=FULL. */
function rawSqliteCreates(dir: string, stored: string): { run: () => Promise<number>; close(): void } {
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
  const insert = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
  return {
    run: () => {
      const id = round++;
      return rate(N.creates, () =>
        inFlight(
          N.creates,
          IN_FLIGHT,
          async (i) => void insert.run(`/registry/${GROUP}/${PLURAL}/${NS}/raw-${id}-${i}`, stored),
        ),
      );
    },
    close: () => db.close(),
  };
}

/** The etcd3 client's create: a txn putting the key if absent, as EtcdStorage sends it. */
function rawEtcdCreates(
  endpoint: string,
  stored: string,
  latencies: number[],
): { run: () => Promise<number>; close(): void } {
  const client = new Etcd3({ hosts: endpoint });
  const value = Buffer.from(stored);
  return {
    run: () => {
      const id = round++;
      return rate(N.creates, () =>
        inFlight(N.creates, IN_FLIGHT, (i) =>
          timed(latencies, async () => {
            const key = Buffer.from(`/registry/${GROUP}/${PLURAL}/${NS}/raw-${id}-${i}`);
            const res = await client.kv.txn({
              compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
              success: [{ request_put: { key, value } }],
            });
            if (!res.succeeded) throw new Error('raw etcd create lost');
          }),
        ),
      );
    },
    close: () => client.close(),
  };
}

/** The server with the CRD installed and one object, `the-one`, to GET. */
async function served(
  args: string[],
): Promise<{ server: ServerProcess; client: BenchClient; path: string; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'mini-apiserver-http-'));
  const server = await startServerProcess({ dataDir, args: ['--log-level', 'warn', ...args] });
  const client = benchClient(server);
  const path = await installCRD(client, GROUP, PLURAL, KIND, SPEC_SCHEMA, NS);
  const r = await client.call('POST', path, body('the-one', 1));
  if (r.status !== 201) throw new Error(`the-one: ${r.status} ${r.body.slice(0, 200)}`);
  return { server, client, path, dataDir };
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const cleanup: (() => Promise<unknown> | unknown)[] = [];
  try {
    const ours = await served([]);
    cleanup.push(
      () => ours.server.stop(),
      () => ours.client.agent.destroy(),
      () => rmSync(ours.dataDir, { recursive: true, force: true }),
    );
    const one = `${ours.path}/the-one`;
    const rv0 = `${one}?resourceVersion=0`;
    // The bytes the bare server answers with: ours', captured once.
    const canned: Record<string, Canned> = {};
    const capture = async (method: string, path: string, status: number, reqBody?: string): Promise<string> => {
      const r = await ours.client.call(method, path, reqBody);
      if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
      canned[`${method} ${path}`] = { status, contentType: 'application/json', body: r.body };
      return r.body;
    };
    await capture('GET', one, 200);
    await capture('GET', rv0, 200);
    await capture('GET', '/version', 200);
    const createAnswer = await capture('POST', ours.path, 201, body('captured', 0));
    const bare = await startBare(ours.dataDir, canned);
    cleanup.push(() => bare.child.kill());
    const bareClient = benchClient({ ...ours.server, url: bare.url });
    cleanup.push(() => bareClient.agent.destroy());
    // What SqliteStorage keeps of a create is about the object as answered: the same bytes.
    const raw = rawSqliteCreates(ours.dataDir, createAnswer);
    cleanup.push(() => raw.close());

    // Warm both (JIT, caches, connections).
    for (const c of [ours.client, bareClient]) {
      await gets(c, one)();
      await gets(c, rv0)();
      await gets(c, '/version')();
    }
    await creates(ours.client, ours.path, 'warm')();
    await creates(bareClient, ours.path, 'warm')();
    await raw.run();

    const metrics: Metric[] = [];
    const row = async (
      name: string,
      unit: string,
      better: Metric['better'],
      a: () => Promise<number>,
      b: () => Promise<number>,
      baseline: string,
    ): Promise<void> => {
      const [x, y] = await paired(N.runs, a, b);
      metrics.push(metric(`${name} (vs ${baseline})`, x, y, unit, better));
      console.log(`  ${name}: ${x.toFixed(x < 10 ? 2 : 0)} vs ${y.toFixed(y < 10 ? 2 : 0)} ${unit}`);
    };
    const BARE = 'bare node:https, same bytes';
    await row(
      `GETs/s of one custom resource, consistent read, ${IN_FLIGHT} in flight`,
      'ops/s',
      'higher',
      gets(ours.client, one),
      gets(bareClient, one),
      BARE,
    );
    await row(
      `GETs/s of one custom resource, resourceVersion=0, ${IN_FLIGHT} in flight`,
      'ops/s',
      'higher',
      gets(ours.client, rv0),
      gets(bareClient, rv0),
      BARE,
    );
    await row(
      `GET of one custom resource, consistent read, 1 in flight, median`,
      'ms',
      'lower',
      latency(ours.client, one),
      latency(bareClient, one),
      BARE,
    );
    await row(
      `GETs/s of /version, ${IN_FLIGHT} in flight`,
      'ops/s',
      'higher',
      gets(ours.client, '/version'),
      gets(bareClient, '/version'),
      BARE,
    );
    await row(
      `creates/s of a custom resource (SQLite), ${IN_FLIGHT} in flight`,
      'ops/s',
      'higher',
      creates(ours.client, ours.path, 'ours'),
      creates(bareClient, ours.path, 'bare'),
      BARE,
    );
    await row(
      `creates/s of a custom resource (SQLite), ${IN_FLIGHT} in flight`,
      'ops/s',
      'higher',
      creates(ours.client, ours.path, 'ours'),
      raw.run,
      'raw better-sqlite3 insert, FULL sync',
    );

    if (spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).stdout.trim()) {
      const etcd: EtcdProcess = await startEtcd();
      cleanup.push(() => etcd.destroy());
      const onEtcd = await served(['--etcd-servers', etcd.endpoint]);
      cleanup.push(
        () => onEtcd.server.stop(),
        () => onEtcd.client.agent.destroy(),
        () => rmSync(onEtcd.dataDir, { recursive: true, force: true }),
      );
      const oursMs: number[] = [];
      const rawMs: number[] = [];
      const rawEtcd = rawEtcdCreates(etcd.endpoint, createAnswer, rawMs);
      cleanup.push(() => rawEtcd.close());
      await creates(onEtcd.client, onEtcd.path, 'warm')();
      await rawEtcd.run();
      rawMs.length = 0;
      await row(
        `creates/s of a custom resource (etcd), ${IN_FLIGHT} in flight`,
        'ops/s',
        'higher',
        creates(onEtcd.client, onEtcd.path, 'ours', oursMs),
        rawEtcd.run,
        'etcd3 client create txn',
      );
      const [a, b] = [p99(oursMs), p99(rawMs)];
      metrics.push(
        metric(`create latency p99 (etcd), ${IN_FLIGHT} in flight (vs etcd3 client create txn)`, a, b, 'ms', 'lower'),
      );
      console.log(`  create latency p99 (etcd), ${IN_FLIGHT} in flight: ${a.toFixed(1)} vs ${b.toFixed(1)} ms`);
    } else {
      console.log('etcd is not on PATH: no etcd row');
    }
    report('http', 'baseline', metrics);
    console.log(
      `${IN_FLIGHT} in flight; stored/answered object ${createAnswer.length} bytes; load average at end: ${load()}`,
    );
  } finally {
    for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
  }
}

await main();
