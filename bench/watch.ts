// bench/watch: the watch cache as clients see it, each figure beside a baseline from the same run.
//
//   watch:  W concurrent HTTPS watches on one custom resource of a real server process (the built
//           binary, SQLite store), then N creates through the API; latency = from the start of a
//           create request to each watcher's receipt of that object's ADDED event. Baseline: W raw
//           SqliteStorage.watch watchers in this process receiving N storage creates, latency from
//           the create call to the callback.
//   list:   a whole list of K objects of ~1 KiB from the server, to the last byte of the body.
//           Baseline: JSON.stringify of the same list in this process.
//   memory: heap bytes per object a Cacher holds (over a SqliteStorage with the same K objects,
//           decoded with JSON.parse as Store does) minus the object's JSON size. Baseline: the
//           JSON size itself.
//
// The bench process is the client; the server runs in its own process, and both share 2 cores.
// PROFILE_SERVER=<dir> writes a CPU profile of the server there (server-<pid>.cpuprofile).
//
// Run: make build && make bench ONLY=watch [QUICK=1]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Cacher } from '../storage/cacher.js';
import type { KubeObject } from '../apimachinery/object.js';
import { SqliteStorage } from '../storage/sqlite.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { type BenchClient, benchClient, installCRD } from './client.js';
import { elapsedMs, inFlight, metric, paired, percentile, quick, report, type Metric } from './report.js';

/** A spec that keeps whatever it is given. */
const PRESERVE_SPEC = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

const N = {
  watchers: quick ? 200 : 1000,
  writes: quick ? 200 : 1000,
  listObjects: quick ? 2000 : 10_000,
  listRuns: quick ? 3 : 7,
  memoryRuns: quick ? 1 : 3,
};
/** Creates in flight during the watch test: one, so each event's latency is its own fan-out, not a queue of them. */
const WATCH_CREATES_IN_FLIGHT = Number(process.env.WATCH_CREATES_IN_FLIGHT ?? 1);
/** Creates in flight while loading the list. */
const LOAD_IN_FLIGHT = 32;
const TARGET = { watchP99Ms: 100, list10kMs: 100, bytesOverJson: 3 * 1024 };

const GROUP = 'bench.example.com';
const NS = 'default';
/** ~1 KiB stored, with the metadata the server adds (uid, creationTimestamp, generation, namespace). */
const PADDING = 'x'.repeat(700);
const object = (kind: string, name: string, i: number): string =>
  JSON.stringify({
    apiVersion: `${GROUP}/v1`,
    kind,
    metadata: { name, labels: { app: 'bench', shard: String(i % 16) } },
    spec: { replicas: i % 5, image: 'registry.example.com/bench/app:v1.2.3', data: PADDING },
  });
const pad = (i: number): string => String(i).padStart(6, '0');

// ---------------------------------------------------------------------------------------------
// Client plumbing

async function ok(c: BenchClient, method: string, path: string, body?: string): Promise<string> {
  const res = await c.call(method, path, body);
  if (res.status < 200 || res.status > 299)
    throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`);
  return res.body;
}

/** User + system CPU seconds of a process so far, from /proc (Linux). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface WatchResult {
  p50: number;
  p99: number;
  max: number;
  eventsPerS: number;
  /** CPU seconds spent during the writes: [server, client]. */
  cpu?: [number, number];
}

function summarise(latencies: Float64Array, deliveredMs: number): WatchResult {
  const sorted = latencies.slice().sort();
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
    eventsPerS: latencies.length / (deliveredMs / 1000),
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Watch delivery

async function serverWatch(c: BenchClient, path: string): Promise<WatchResult> {
  const W = N.watchers;
  const total = W * N.writes;
  const started = new Float64Array(N.writes);
  const latencies = new Float64Array(total);
  let received = 0;
  let lastAt = 0;
  let finish: () => void = () => {};
  const done = new Promise<void>((r) => (finish = r));

  const listRv = (JSON.parse(await ok(c, 'GET', path)) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
  // Its own agent: one connection per watch, TLS sessions resumed.
  const watchAgent = new Agent({ keepAlive: false, maxSockets: Infinity, ca: c.server.ca });
  const requests: Array<ReturnType<typeof httpsRequest>> = [];
  const marker = '"name":"w-';
  const open = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(
        `${c.server.url}${path}?watch=true&resourceVersion=${listRv}&timeoutSeconds=600`,
        { agent: watchAgent, headers: { authorization: `Bearer ${c.server.token}` } },
        (res) => {
          if (res.statusCode !== 200) return reject(new Error(`watch: ${res.statusCode}`));
          res.setEncoding('utf8');
          let partial = '';
          res.on('data', (chunk: string) => {
            const now = performance.now();
            let text = partial + chunk;
            let nl: number;
            while ((nl = text.indexOf('\n')) >= 0) {
              // metadata.name is the first "name" of an ADDED line: {"type":"ADDED","object":{"apiVersion",...
              const at = text.indexOf(marker);
              if (at >= 0 && at < nl) {
                const i = Number(text.slice(at + marker.length, at + marker.length + 6));
                latencies[received++] = now - started[i]!;
                lastAt = now;
              }
              text = text.slice(nl + 1);
            }
            partial = text;
            if (received === total) finish();
          });
          res.on('error', () => {});
          resolve();
        },
      );
      req.on('error', (err) => (received < total ? reject(err) : undefined));
      req.end();
      requests.push(req);
    });
  const connectMs = await elapsedMs(() => inFlight(W, 50, open));
  // Headers come once the watch is registered; let the last registrations settle.
  await new Promise((r) => setTimeout(r, 200));

  const cpu0 = [cpuSeconds(c.server.child.pid!), process.cpuUsage()] as const;
  const t0 = performance.now();
  await inFlight(N.writes, WATCH_CREATES_IN_FLIGHT, async (i) => {
    started[i] = performance.now();
    await ok(c, 'POST', path, object('Thing', `w-${pad(i)}`, i));
  });
  const createsMs = performance.now() - t0;
  const timeout = setTimeout(() => finish(), 60_000);
  await done;
  clearTimeout(timeout);
  const cpuClient = process.cpuUsage(cpu0[1]);
  const cpu: [number, number] = [cpuSeconds(c.server.child.pid!) - cpu0[0], (cpuClient.user + cpuClient.system) / 1e6];
  if (received !== total) throw new Error(`watchers received ${received} of ${total} events`);
  for (const req of requests) req.destroy();
  watchAgent.destroy();
  console.log(
    `watch: ${W} watchers connected in ${connectMs.toFixed(0)} ms; ${N.writes} creates (${WATCH_CREATES_IN_FLIGHT} in flight) in ${createsMs.toFixed(0)} ms; ` +
      `all ${total} events delivered after ${(lastAt - t0).toFixed(0)} ms; CPU during writes: server ${cpu[0].toFixed(1)} s, client ${cpu[1].toFixed(1)} s`,
  );
  return { ...summarise(latencies, lastAt - t0), cpu };
}

async function rawWatch(): Promise<WatchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
  const store = SqliteStorage.open(join(dir, 'raw.db'));
  try {
    const prefix = `/registry/${GROUP}/things/${NS}/`;
    const total = N.watchers * N.writes;
    const started = new Float64Array(N.writes);
    const latencies = new Float64Array(total);
    let received = 0;
    let lastAt = 0;
    let finish: () => void = () => {};
    const done = new Promise<void>((r) => (finish = r));
    const rev = await store.currentRevision();
    const handles = Array.from({ length: N.watchers }, () =>
      store.watch(prefix, rev, {
        onEvents(events) {
          const now = performance.now();
          for (const ev of events) latencies[received++] = now - started[Number(ev.kv.key.slice(prefix.length + 2))]!;
          lastAt = now;
          if (received === total) finish();
        },
        onError(err) {
          throw err;
        },
      }),
    );
    const t0 = performance.now();
    await inFlight(N.writes, WATCH_CREATES_IN_FLIGHT, async (i) => {
      started[i] = performance.now();
      await store.create(`${prefix}w-${pad(i)}`, object('Thing', `w-${pad(i)}`, i));
    });
    await done;
    for (const h of handles) h.close();
    return summarise(latencies, lastAt - t0);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// 2. A list of K objects

async function loadList(c: BenchClient, path: string): Promise<number> {
  return elapsedMs(() =>
    inFlight(N.listObjects, LOAD_IN_FLIGHT, (i) => ok(c, 'POST', path, object('Item', `item-${pad(i)}`, i))),
  );
}

/** Time to the first byte of each timed list: what the server spends before it starts sending. */
const listFirstByteMs: number[] = [];

async function timeList(c: BenchClient, path: string): Promise<number> {
  const start = performance.now();
  const body = await new Promise<string>((resolve, reject) => {
    const req = httpsRequest(
      `${c.server.url}${path}`,
      { agent: c.agent, headers: { authorization: `Bearer ${c.server.token}`, accept: 'application/json' } },
      (res) => {
        listFirstByteMs.push(performance.now() - start);
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks).toString('utf8'))
            : reject(new Error(`list: ${res.statusCode}`)),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  const ms = performance.now() - start;
  if (!body.endsWith(']}')) throw new Error('list body incomplete');
  return ms;
}

// ---------------------------------------------------------------------------------------------
// 3. Cache memory

/** global.gc, or one obtained through V8 flags when node was not started with --expose-gc. */
function gcFunction(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return g;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function heapAfterGc(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Heap bytes per object of one Cacher loaded from `store`. Its own function, so that no suspended
 * async frame still holds the previous run's cacher when the next one measures its baseline.
 */
async function cachedHeap(gc: () => void, store: SqliteStorage, prefix: string, count: number): Promise<number> {
  const before = heapAfterGc(gc);
  // Store's decode: the stored JSON, resourceVersion set from the revision.
  let cacher: Cacher<KubeObject> | undefined = new Cacher<KubeObject>(store, prefix, (kv) => {
    const obj = JSON.parse(kv.value) as KubeObject;
    obj.metadata.resourceVersion = String(kv.modRevision);
    return obj;
  });
  await cacher.waitFresh(0);
  const after = heapAfterGc(gc);
  cacher.stop();
  cacher = undefined;
  return (after - before) / count;
}

/** Bytes of heap per cached object, and the mean stored JSON size. */
async function cacheBytes(values: readonly string[]): Promise<{ perObject: number; json: number }> {
  const gc = gcFunction();
  const dir = mkdtempSync(join(tmpdir(), 'bench-cache-'));
  const store = SqliteStorage.open(join(dir, 'cache.db'));
  const prefix = `/registry/${GROUP}/items/`;
  try {
    await inFlight(values.length, 64, (i) => store.create(`${prefix}${NS}/item-${pad(i)}`, values[i]!));
    const json = values.reduce((s, v) => s + Buffer.byteLength(v), 0) / values.length;
    const results: number[] = [];
    for (let run = 0; run < N.memoryRuns; run++) results.push(await cachedHeap(gc, store, prefix, values.length));
    console.log(`memory: heap per cached object, each run: ${results.map((r) => r.toFixed(0)).join(', ')} B`);
    results.sort((a, b) => a - b);
    return { perObject: results[Math.floor((results.length - 1) / 2)]!, json };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------

/** A preload that CPU-profiles the server process and writes server-<pid>.cpuprofile into `dir` as it exits. */
function serverProfiler(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'server-profiler.cjs');
  writeFileSync(
    file,
    `const { Session } = require('node:inspector');
const { writeFileSync } = require('node:fs');
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 200 });
session.post('Profiler.start');
process.on('exit', () => {
  session.post('Profiler.stop', (err, res) => {
    if (!err) writeFileSync(${JSON.stringify(dir)} + '/server-' + process.pid + '.cpuprofile', JSON.stringify(res.profile));
  });
});
`,
  );
  return file;
}

async function main(): Promise<void> {
  const benchStart = performance.now();
  const profileDir = process.env.PROFILE_SERVER;
  const savedNodeOptions = process.env.NODE_OPTIONS;
  // The server inherits this environment: none of the client's flags, and for a profile a preload
  // (node 20 refuses --cpu-prof in NODE_OPTIONS, so the inspector takes it).
  if (profileDir) process.env.NODE_OPTIONS = `--require ${serverProfiler(profileDir)}`;
  else delete process.env.NODE_OPTIONS;
  const server = await startServerProcess({ args: ['--log-level', 'warn'] });
  if (savedNodeOptions === undefined) delete process.env.NODE_OPTIONS;
  else process.env.NODE_OPTIONS = savedNodeOptions;

  const c = benchClient(server);
  let watch: WatchResult;
  let raw: WatchResult;
  let list: [number, number];
  let values: string[];
  try {
    const thingsPath = await installCRD(c, GROUP, 'things', 'Thing', PRESERVE_SPEC, NS);
    const itemsPath = await installCRD(c, GROUP, 'items', 'Item', PRESERVE_SPEC, NS);

    watch = await serverWatch(c, thingsPath);
    raw = await rawWatch();

    const loadMs = await loadList(c, itemsPath);
    console.log(
      `list: loaded ${N.listObjects} objects through the API (${LOAD_IN_FLIGHT} in flight) in ${(loadMs / 1000).toFixed(1)} s`,
    );
    const listed = JSON.parse(await ok(c, 'GET', itemsPath)) as { items: KubeObject[] };
    if (listed.items.length !== N.listObjects)
      throw new Error(`listed ${listed.items.length} objects, expected ${N.listObjects}`);
    list = await paired(
      N.listRuns,
      () => timeList(c, itemsPath),
      () => elapsedMs(() => JSON.stringify(listed)),
    );
    const firstByte = [...listFirstByteMs].sort((a, b) => a - b)[Math.floor((listFirstByteMs.length - 1) / 2)]!;
    console.log(
      `list: median time to first byte ${firstByte.toFixed(1)} ms of ${list[0].toFixed(1)} ms (${(Buffer.byteLength(JSON.stringify(listed)) / 2 ** 20).toFixed(1)} MiB body)`,
    );
    // What the store holds: the objects without their resourceVersion.
    values = listed.items.map((o) => {
      const { resourceVersion: _rv, ...metadata } = o.metadata;
      return JSON.stringify({ ...o, metadata });
    });
  } finally {
    c.agent.destroy();
    await server.stop();
  }
  const mem = await cacheBytes(values);

  const met = (m: boolean): string => (m ? 'met' : 'MISSED');
  const listMs = list[0];
  const over = mem.perObject - mem.json;
  const metrics: Metric[] = [
    // Names are the contract (bench/results/watch.json); sizes are in the table's title.
    metric('watch_p99_ms', watch.p99, raw.p99, 'ms', 'lower'),
    metric('watch_p50_ms', watch.p50, raw.p50, 'ms', 'lower'),
    metric('watch_events_per_s', watch.eventsPerS, raw.eventsPerS, 'events/s', 'higher'),
    metric('list10k_ms', listMs, list[1], 'ms', 'lower'),
    metric('cache_bytes_per_object_over_json', over, mem.json, 'B', 'lower'),
  ];
  console.log(`\n${N.watchers} watchers and ${N.writes} creates; a list of ${N.listObjects} objects of ~1 KiB`);
  report('watch', 'baseline', metrics);
  console.log(
    `baselines: raw SqliteStorage.watch in-process; JSON.stringify of the same list; the stored JSON size per object`,
  );
  console.log(
    `watch max latency: ${watch.max.toFixed(0)} ms (raw ${raw.max.toFixed(1)} ms); cache heap per object ${mem.perObject.toFixed(0)} B for ${mem.json.toFixed(0)} B of JSON`,
  );
  console.log('targets:');
  console.log(
    `  watch p99 <= ${TARGET.watchP99Ms} ms at ${N.watchers} watchers: ${watch.p99.toFixed(1)} ms, ${met(watch.p99 <= TARGET.watchP99Ms)}${quick ? ' (QUICK: 200 watchers, the target is for 1,000)' : ''}`,
  );
  console.log(
    `  list of ${N.listObjects} <= ${TARGET.list10kMs} ms: ${listMs.toFixed(1)} ms, ${met(listMs <= TARGET.list10kMs)}${quick ? ' (QUICK: the target is for 10,000)' : ''}`,
  );
  console.log(
    `  cache <= ${TARGET.bytesOverJson} B over JSON per object: ${over.toFixed(0)} B, ${met(over <= TARGET.bytesOverJson)}`,
  );
  console.log(`total ${((performance.now() - benchStart) / 1000).toFixed(1)} s`);
}

await main();
