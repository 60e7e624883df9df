// bench/http: issue 26's table, each figure beside a baseline measured in the same run. The server
// is the built binary in its own process, driven by wrk (bench/wrk.ts: one thread, 64 keep-alive
// connections, the admin token), which costs far less per request than a Node client would on the
// two cores the server shares with it.
//
//   create   creates/s of a custom resource whose CRD has a schema, a CEL rule and defaults, on
//            SQLite, each with a new name. Baselines: the raw durable write of the stored bytes
//            (better-sqlite3, WAL, synchronous=FULL, one row per transaction: what SqliteStorage's
//            durability costs at the least), a Node loop; and a bare node:https server in its own
//            process (bench/bare.ts, the same certificate) answering a POST of the same body.
//            Also each server process's CPU per request over the wrk runs (all its threads, /proc),
//            each side warmed by WARM_REQUESTS requests first.
//   GET      one custom resource (a consistent read, and resourceVersion=0 from the watch cache),
//            and /version: beside the bare server answering the same bytes (ours, captured). Also
//            each server's CPU time per request over the wrk run (/proc, all threads): steadier
//            than the rates when other work shares the cores.
//   list     the time per list of 10,000 custom resources of ~1 KiB from the watch cache, one
//            connection, lists one after another: beside the bare server answering the same bytes.
//   restart  the binary on an existing data dir (one start's), from spawn to the first 200 of
//            /readyz: beside the bare server's process. Node spawns and polls both: wrk cannot.
//            Also each process's CPU time to that 200, all threads (/proc): on a busy machine the
//            wall clock mostly measures the wait for a core.
//   etcd     creates/s through a server on --etcd-servers (test/helpers/etcd.ts starts one), beside
//            the etcd3 client's create transaction of the stored bytes, 64 in flight from Node (a
//            storage client's calls are not HTTP), under a key no watch covers; with each side's
//            p99, and each side's CPU per create (server and etcd; client and etcd) from /proc.
//
// Rounds taken in turns (report.ts's `inTurns`), medians. No test asserts these: the figures and
// the targets are printed side by side.
//
// Run: make build && make bench ONLY=http [QUICK=1] [ROWS=restart,create,get,list,etcd] (ROWS: only
// those rows, for a look at one figure; all of them without it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { startEtcd } from '../test/helpers/etcd.js';
import { BIN, type ServerProcess, startServerProcess } from '../test/helpers/server-process.js';
import { type Canned, bareArgs, cpuMs, processStart, startBare } from './bare.js';
import { type BenchClient, benchClient, installCRD } from './client.js';
import { type Metric, inFlight, inTurns, median, metric, quick, report, verdict } from './report.js';
import { CONNECTIONS, type Load, WRK_SECONDS, medianLoad, nodeLoad, postBody, wrk } from './wrk.js';

const GROUP = 'http.bench.example.com';
const NS = 'default';
const N = {
  runs: quick ? 1 : 3,
  restarts: quick ? 3 : 7,
  listObjects: quick ? 2_000 : 10_000,
};
/** Creates in flight while loading the list: setup, not measured. */
const LOAD_IN_FLIGHT = 32;

/** A rule and defaults, so that a create runs what a real CRD's would: decode, default, validate, CEL. */
const WIDGET_SPEC = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: 'self.size <= self.maxSize', message: 'size must not exceed maxSize' }],
  properties: {
    size: { type: 'integer' },
    maxSize: { type: 'integer', default: 100 },
    color: { type: 'string', default: 'blue' },
  },
};
const widget = (name: string) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name },
  spec: { size: 3 },
});
/** ~1 KiB stored, with what the server adds (uid, creationTimestamp, managedFields...). */
const ITEM_SPEC = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const item = (i: number): string =>
  JSON.stringify({
    apiVersion: `${GROUP}/v1`,
    kind: 'Item',
    metadata: { name: `item-${String(i).padStart(6, '0')}`, labels: { app: 'bench', shard: String(i % 16) } },
    spec: { replicas: i % 5, image: 'registry.example.com/bench/app:v1.2.3', data: 'x'.repeat(500) },
  });

const ROWS = ['restart', 'create', 'get', 'list', 'etcd'] as const;
type Row = (typeof ROWS)[number];
const wanted = new Set<string>(process.env.ROWS ? process.env.ROWS.split(',') : ROWS);
for (const row of wanted)
  if (!(ROWS as readonly string[]).includes(row)) throw new Error(`ROWS: no row ${row} (rows: ${ROWS.join(',')})`);
const want = (row: Row): boolean => wanted.has(row);

const TARGET = { createOfRaw: 0.9, get: 0.5, listMs: 100, restart: 1.5, etcdOfRaw: 0.6, etcdP99Ms: 50 };

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** A row of the table from two sides' loads: rate, p50 and p99 of each. */
function rateRow(name: string, ours: Load, baseline: Load, target?: string): Metric {
  return {
    ...metric(name, ours.rate, baseline.rate, 'ops/s', 'higher'),
    latency: { ours, baseline },
    ...(target === undefined ? {} : { target }),
  };
}

/** Medians of each side's loads over `N.runs` rounds in turns. */
async function measure(sides: (() => Promise<Load>)[]): Promise<Load[]> {
  return (await inTurns(N.runs, sides)).map(medianLoad);
}

/** The server with the Widget CRD, one Widget to GET and the path of its collection. */
async function served(args: string[]): Promise<{ server: ServerProcess; client: BenchClient; widgets: string }> {
  const server = await startServerProcess({ args: ['--log-level', 'warn', ...args] });
  const client = benchClient(server);
  const widgets = await installCRD(client, GROUP, 'widgets', 'Widget', WIDGET_SPEC, NS);
  const r = await client.call('POST', widgets, JSON.stringify(widget('the-one')));
  if (r.status !== 201) throw new Error(`the-one: ${r.status} ${r.body.slice(0, 200)}`);
  return { server, client, widgets };
}

let runId = 0;
/** wrk creating widgets into `url` under names no other run takes. */
const creates = (url: string, token: string, body: string) => (): Promise<Load> =>
  wrk(url, { token, post: { file: body, prefix: `w${runId++}` } });

async function restart(dir: string): Promise<Metric[]> {
  // The data dir a first start made, as a restart finds it.
  mkdirSync(dir);
  const first = await startServerProcess({ dataDir: dir, args: ['--log-level', 'warn'] });
  const ca = first.ca;
  await first.stop();
  const ours = [BIN, '--data-dir', dir, '--secure-port', '0', '--log-level', 'warn'];
  const bare = bareArgs(dir, {});
  // Warm the page cache and the compile caches of both.
  await processStart(ours, ca);
  await processStart(bare, ca);
  const [a, b] = await inTurns(N.restarts, [() => processStart(ours, ca), () => processStart(bare, ca)]);
  const [x, y] = [median(a!.map((s) => s.ms)), median(b!.map((s) => s.ms))];
  return [
    {
      ...metric(
        'restart to /readyz 200, existing data dir, ms (vs bare node:https process; Node spawns and polls)',
        x,
        y,
        'ms',
        'lower',
      ),
      target: verdict(`≤ ${TARGET.restart}x`, x / y <= TARGET.restart),
    },
    metric(
      'restart: CPU time of its threads to /readyz 200, ms (vs the bare process; from /proc)',
      median(a!.map((s) => s.cpuMs)),
      median(b!.map((s) => s.cpuMs)),
      'ms',
      'lower',
    ),
  ];
}

async function onSqlite(dir: string): Promise<Metric[]> {
  const cleanup: (() => unknown)[] = [];
  try {
    const { server, client, widgets } = await served([]);
    cleanup.push(
      () => server.stop(),
      () => client.agent.destroy(),
    );
    const items = await installCRD(client, GROUP, 'items', 'Item', ITEM_SPEC, NS);
    const listObjects = want('list') ? N.listObjects : 0;
    await inFlight(listObjects, LOAD_IN_FLIGHT, async (i) => {
      const r = await client.call('POST', items, item(i));
      if (r.status !== 201) throw new Error(`item ${i}: ${r.status} ${r.body.slice(0, 200)}`);
    });

    // The bytes the bare server answers with: ours, captured once.
    const canned: Record<string, Canned> = {};
    const capture = async (method: string, path: string, status: number, body?: string): Promise<string> => {
      const r = await client.call(method, path, body);
      if (r.status !== status) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
      canned[`${method} ${path}`] = { status, contentType: 'application/json', body: r.body };
      return r.body;
    };
    const one = `${widgets}/the-one`;
    const rv0 = `${one}?resourceVersion=0`;
    for (const path of [one, rv0, '/version']) await capture('GET', path, 200);
    const list = await capture('GET', items, 200);
    const listed = (JSON.parse(list) as { items: unknown[] }).items.length;
    if (listed !== listObjects) throw new Error(`listed ${listed} items, expected ${listObjects}`);
    const stored = await capture('POST', widgets, 201, JSON.stringify(widget('captured')));
    const bare = await startBare(server.dataDir, canned);
    cleanup.push(() => bare.stop());

    // The raw durable write: one INSERT per transaction of what a create stores (about the object as answered).
    const db = new Database(join(dir, 'raw.db'));
    cleanup.push(() => db.close());
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    const insert = db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)');
    let key = 0;
    const raw = (): Promise<Load> =>
      nodeLoad(1, () => insert.run(`/registry/${GROUP}/widgets/${NS}/raw-${key++}`, stored));

    const token = server.token;
    const body = postBody(dir, 'widget.json', widget(''));
    const get = (base: string, path: string, connections?: number) => (): Promise<Load> =>
      wrk(`${base}${path}`, { token, ...(connections === undefined ? {} : { connections }) });
    /** A GET run with the server's CPU time per request, in µs. */
    const cpuPerGet = (base: string, path: string, pid: number) => async (): Promise<{ load: Load; cpuUs: number }> => {
      const before = cpuMs(pid);
      const load = await wrk(`${base}${path}`, { token });
      return { load, cpuUs: ((cpuMs(pid) - before) * 1000) / load.requests };
    };

    // Warm both servers (JIT, caches) and the raw table.
    for (const base of [server.url, bare.url]) {
      for (const path of [one, rv0, '/version']) await wrk(`${base}${path}`, { token, seconds: 1, allowNone: true });
      await wrk(`${base}${items}`, { token, seconds: 1, connections: 1, allowNone: true });
      await wrk(`${base}${widgets}`, {
        token,
        seconds: 1,
        allowNone: true,
        post: { file: body, prefix: `warm${runId++}` },
      });
    }
    await raw();

    const metrics: Metric[] = [];
    if (want('create')) {
      const ours = creates(`${server.url}${widgets}`, token, body);
      const bareCreates = creates(`${bare.url}${widgets}`, token, body);
      await warmUp(ours);
      await warmUp(bareCreates);
      const serverPid = server.child.pid!;
      const [a, b, c] = await inTurns(N.runs, [
        costed(ours, { server: () => cpuMs(serverPid) }),
        costed(bareCreates, { bare: () => cpuMs(bare.pid) }),
        costed(raw, {}),
      ]);
      const [created, bareCreated, rawCreated] = [a!, b!, c!].map((runs) => medianLoad(runs.map((r) => r.load)));
      const cpu = median(a!.map((r) => r.cpuUs['server']!));
      const bareCpu = median(b!.map((r) => r.cpuUs['bare']!));
      metrics.push(
        rateRow(
          'create of a custom resource (schema, CEL rule, defaults), SQLite (vs raw durable SQLite insert, a Node loop)',
          created!,
          rawCreated!,
          verdict(`≥ ${TARGET.createOfRaw}`, created!.rate / rawCreated!.rate >= TARGET.createOfRaw),
        ),
        rateRow('create, the same (vs bare node:https answering a POST of the same body)', created!, bareCreated!),
        metric(
          "create: the server's CPU per create, µs, all threads, /proc (vs the bare node:https process per POST)",
          cpu,
          bareCpu,
          'µs',
          'lower',
        ),
      );
    }
    for (const [name, path] of want('get')
      ? ([
          ['GET of one custom resource, consistent read', one],
          ['GET of one custom resource, resourceVersion=0', rv0],
          ['GET /version', '/version'],
        ] as const)
      : []) {
      const [ours, baseline] = await inTurns(N.runs, [
        cpuPerGet(server.url, path, server.child.pid!),
        cpuPerGet(bare.url, path, bare.pid),
      ]);
      const [oursLoad, bareLoad] = [medianLoad(ours!.map((r) => r.load)), medianLoad(baseline!.map((r) => r.load))];
      const met = oursLoad.rate / bareLoad.rate >= TARGET.get;
      const target = path === one ? verdict(`≥ ${TARGET.get}`, met) : undefined;
      metrics.push(
        rateRow(`${name} (vs bare node:https, same bytes)`, oursLoad, bareLoad, target),
        metric(
          `${name}: server CPU per request, µs (vs the bare server's; /proc, all threads)`,
          median(ours!.map((r) => r.cpuUs)),
          median(baseline!.map((r) => r.cpuUs)),
          'µs',
          'lower',
        ),
      );
    }
    if (want('list')) {
      const [ours, baseline] = await measure([get(server.url, items, 1), get(bare.url, items, 1)]);
      // One list at a time: the time per list is the inverse of the rate.
      const [perList, barePerList] = [1000 / ours!.rate, 1000 / baseline!.rate];
      metrics.push({
        ...metric(
          `list of ${N.listObjects} from the cache, ms per list, one connection (vs bare node:https, same ${(list.length / 2 ** 20).toFixed(1)} MiB)`,
          perList,
          barePerList,
          'ms',
          'lower',
        ),
        latency: { ours: ours!, baseline: baseline! },
        target: verdict(`≤ ${TARGET.listMs} ms`, perList <= TARGET.listMs),
      });
    }
    console.log(`a widget as stored and answered: ${stored.length} bytes`);
    return metrics;
  } finally {
    for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
  }
}

/**
 * Requests a side makes before it is measured. V8 optimizes a create's path over thousands of
 * creates: after a second of them the server spent 2.4 ms of CPU a create, and settled near 1 ms
 * only after 3,000 to 5,000.
 */
const WARM_REQUESTS = 5_000;

/** Runs `side` until it has made WARM_REQUESTS requests, at least one run. */
async function warmUp(side: () => Promise<Load>): Promise<void> {
  for (let made = 0; made < WARM_REQUESTS; ) made += (await side()).rate * WRK_SECONDS;
}

/** A side's load with the CPU time (µs per request) of each process it kept busy, read around it. */
interface Costed {
  load: Load;
  cpuUs: Record<string, number>;
}

/** Runs `side` and reads the CPU time each of `processes` spent in it (bench/bare.ts's cpuMs). */
function costed(side: () => Promise<Load>, processes: Record<string, () => number>): () => Promise<Costed> {
  return async () => {
    const before = Object.entries(processes).map(([name, cpu]) => [name, cpu()] as const);
    const start = performance.now();
    const load = await side();
    const requests = (load.rate * (performance.now() - start)) / 1000;
    const cpuUs = Object.fromEntries(
      before.map(([name, was]) => [name, ((processes[name]!() - was) * 1000) / requests]),
    );
    return { load, cpuUs };
  };
}

async function onEtcd(): Promise<Metric[]> {
  const etcd = await startEtcd();
  const cleanup: (() => unknown)[] = [() => etcd.destroy()];
  try {
    const { server, client, widgets } = await served(['--etcd-servers', etcd.endpoint]);
    cleanup.push(
      () => server.stop(),
      () => client.agent.destroy(),
    );
    const r = await client.call('POST', widgets, JSON.stringify(widget('captured')));
    if (r.status !== 201) throw new Error(`captured: ${r.status} ${r.body.slice(0, 200)}`);
    const value = Buffer.from(r.body);
    const etcd3 = new Etcd3({ hosts: etcd.endpoint });
    cleanup.push(() => etcd3.close());
    let key = 0;
    // The create EtcdStorage sends: put the key if absent. Under a prefix no watch covers: under the
    // widgets' own, the server's watch cache would decode every raw create while the raw side runs,
    // and etcd send it, slowing the baseline with work that is not the client's.
    const raw = (): Promise<Load> =>
      nodeLoad(CONNECTIONS, async () => {
        const k = Buffer.from(`/mini-apiserver-bench/raw-${key++}`);
        const res = await etcd3.kv.txn({
          compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
          success: [{ request_put: { key: k, value } }],
        });
        if (!res.succeeded) throw new Error('raw etcd create lost');
      });
    const body = postBody(server.dataDir, 'widget.json', widget(''));
    const ours = creates(`${server.url}${widgets}`, server.token, body);
    await warmUp(ours);
    await warmUp(raw);
    const serverPid = server.child.pid!;
    const processes = {
      server: () => cpuMs(serverPid),
      etcd: () => cpuMs(etcd.pid),
      'Node client': () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      },
    };
    const [a, b] = await inTurns(N.runs, [costed(ours, processes), costed(raw, processes)]);
    const [created, baseline] = [medianLoad(a!.map((c) => c.load)), medianLoad(b!.map((c) => c.load))];
    const cpu = (runs: Costed[], name: string): number => median(runs.map((c) => c.cpuUs[name]!));
    const met = created.rate / baseline.rate >= TARGET.etcdOfRaw && created.p99 <= TARGET.etcdP99Ms;
    console.log(
      `etcd: CPU per create, µs (/proc, all threads; medians): ours: server ${cpu(a!, 'server').toFixed(0)}, etcd ${cpu(a!, 'etcd').toFixed(0)}; raw: Node client ${cpu(b!, 'Node client').toFixed(0)}, etcd ${cpu(b!, 'etcd').toFixed(0)}, server (idle) ${cpu(b!, 'server').toFixed(0)}`,
    );
    return [
      rateRow(
        `create of a custom resource, etcd (vs etcd3 client's create txn, ${CONNECTIONS} in flight from Node)`,
        created,
        baseline,
        verdict(`≥ ${TARGET.etcdOfRaw}, p99 ≤ ${TARGET.etcdP99Ms} ms`, met),
      ),
      metric(
        'create on etcd: CPU per create of the server and etcd, µs (vs the raw client and etcd per txn; /proc)',
        cpu(a!, 'server') + cpu(a!, 'etcd'),
        cpu(b!, 'Node client') + cpu(b!, 'etcd'),
        'µs',
        'lower',
      ),
    ];
  } finally {
    for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const dir = mkdtempSync(join(tmpdir(), 'mini-apiserver-http-'));
  try {
    const metrics = want('restart') ? await restart(join(dir, 'restart')) : [];
    if (want('create') || want('get') || want('list')) metrics.push(...(await onSqlite(dir)));
    if (want('etcd')) {
      if (spawnSync('sh', ['-c', 'command -v etcd']).status === 0) metrics.push(...(await onEtcd()));
      else console.log('etcd is not on PATH (make bench installs it): no etcd row');
    }
    report('http', 'baseline', metrics);
    console.log(
      `wrk: 1 thread, ${CONNECTIONS} connections (lists: 1), ${WRK_SECONDS} s a run, ${N.runs} run(s) a side in turns, medians; load average at end: ${load()}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
