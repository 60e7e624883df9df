// bench/soak: no client, however hostile, may crash or stall the server: hostile load for a fixed
// time against the real server process (the built binary, embedded SQLite store, temp data dir).
//
//   - 1,000 watchers on a CRD's custom resources; 300 of them never read past the response
//     headers (their sockets paused), so the server's send buffers toward them fill;
//   - 200 mutating clients in a loop: create, update, delete of ~10 KB objects;
//   - 10 clients with `edit` in the namespace, each sending in a loop one strategic merge patch of
//     12,000 ownerReferences to a ConfigMap (a keyed merge of a 1.2 MB list; the result is past
//     the object size limit, so each gets its 413 only after all the work);
//   - 300 slowloris connections, trickling a request's headers one byte every few seconds;
//   - the load runs as a plain user (kube serves system:masters beside every limit), so the
//     server's in-flight limits and its saturation check apply to it, as to a real controller;
//   - a prober GETting /readyz every 100 ms (on a fresh connection each time, from a worker
//     thread, so the load this process generates does not delay it), and the server's RSS
//     (/proc/<pid>/status VmRSS) sampled every second by the same thread.
//
// Bounds (exit 1 if any is broken):
//   - peak RSS of the server < 1 GiB;
//   - /readyz p99 < 1 s (a probe that fails or times out counts at its timeout);
//   - the server process still running at the end.
//
// All traffic goes to 127.0.0.1. Every loop stops at the deadline (and has a count cap), and every
// socket, the worker and the server process are closed before exit.
//
// Run: make soak  (SOAK_SECONDS=30 make soak for a short run; default 120 s). Not part of `make
// bench` (scripts/run-bench.sh leaves it out) nor of `make test`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request as httpsRequest } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { Worker } from 'node:worker_threads';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process.js';
import { percentile } from './report.js';

const BOUNDS = { peakRssBytes: 1024 ** 3, readyzP99Ms: 1000 } as const;

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const N = {
  watchers: 1000,
  pausedWatchers: 300,
  mutators: 200,
  slowloris: 300,
  patchers: 10,
  ownerReferences: 12_000,
} as const;
/** Seconds between two bytes of a slowloris connection's headers (jittered 2 to 5 s). */
const TRICKLE_MS = [2000, 5000] as const;
const PROBE_EVERY_MS = 100;
const PROBE_TIMEOUT_MS = 5000;
const REQUEST_TIMEOUT_MS = 30_000;
/** Connections opened at once while setting up, so the handshakes do not arrive as one wall. */
const OPEN_BATCH = 50;
const INFLIGHT_FLAGS = ['--max-requests-inflight', '400', '--max-mutating-requests-inflight', '200'];

const GROUP = 'soak.example.com';
const NS = 'soak';
const COLLECTION = `/apis/${GROUP}/v1/namespaces/${NS}/blobs`;
/** The ConfigMap the patchers send their ownerReferences to. */
const OWNED = 'owned';
const OWNERS_PATCH = JSON.stringify({
  metadata: {
    ownerReferences: Array.from({ length: N.ownerReferences }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: `owner-${i}`,
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
    })),
  },
});
const PADDING = 'x'.repeat(10 * 1024);
/** The load's bearer token (a plain user); set-up uses the administrator's. */
const LOAD_TOKEN = randomBytes(16).toString('hex');

if (!Number.isFinite(SECONDS) || SECONDS <= 0)
  throw new Error(`SOAK_SECONDS must be a positive number, not ${process.env.SOAK_SECONDS}`);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Runs `fn(i)` for i in [0, total), at most `batch` at once. */
async function inBatches(total: number, batch: number, fn: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < total; i += batch)
    await Promise.all(Array.from({ length: Math.min(batch, total - i) }, (_, j) => fn(i + j)));
}

// ---------------------------------------------------------------------------------------------
// Plain requests (set-up and the mutators): keep-alive connections trusting the server's CA.

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function caller(server: ServerProcess, agent: Agent, token: string) {
  return (method: string, path: string, body?: string, contentType = 'application/json'): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = contentType;
      const req = httpsRequest(
        `${server.url}${path}`,
        { method, agent, headers, timeout: REQUEST_TIMEOUT_MS },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              headers: res.headers,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on('error', reject);
      req.end(body);
    });
}

type Call = ReturnType<typeof caller>;

async function setUp(call: Call): Promise<void> {
  const ok = async (method: string, path: string, body: unknown): Promise<void> => {
    const r = await call(method, path, JSON.stringify(body));
    if (r.status !== 201) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 300)}`);
  };
  await ok('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await ok('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `blobs.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'blobs', singular: 'blob', kind: 'Blob' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        },
      ],
    },
  });
  await ok('POST', `/api/v1/namespaces/${NS}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: OWNED },
    data: { a: 'b' },
  });
  await ok('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'soak-client-edit' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'soak-client' }],
  });
  // edit covers the built-in kinds only (kube aggregates CRDs' rules into it by label): the blobs,
  // which half the watchers watch across namespaces, are granted beside it.
  await ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'soak-client-blobs' },
    rules: [{ apiGroups: [GROUP], resources: ['blobs'], verbs: ['*'] }],
  });
  await ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'soak-client-blobs' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'soak-client-blobs' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'soak-client' }],
  });
  for (let i = 0; (await call('GET', COLLECTION)).status !== 200; i++) {
    if (i > 400) throw new Error('the CRD was never served');
    await sleep(25);
  }
}

// ---------------------------------------------------------------------------------------------
// Raw TLS connections: watchers and slowloris.

function tlsOpen(server: ServerProcess): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: server.ca }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

interface Watcher {
  socket: TLSSocket;
  paused: boolean;
  status?: number;
  bytes: number;
  events: number;
  /** The server ended the connection (seen by a reading watcher). */
  endedByServer: boolean;
  closed: boolean;
}

/** A watch; a paused one reads only as far as the status line, then never again. */
async function openWatcher(server: ServerProcess, paused: boolean, i: number): Promise<Watcher> {
  const socket = await tlsOpen(server);
  const w: Watcher = { socket, paused, bytes: 0, events: 0, endedByServer: false, closed: false };
  // Half the watchers watch one namespace, half every namespace: two paths through the cache.
  const path = i % 2 === 0 ? `${COLLECTION}?watch=true` : `/apis/${GROUP}/v1/blobs?watch=true`;
  socket.on('data', (c: Buffer) => {
    if (w.status === undefined) {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(c.toString('latin1', 0, 16));
      w.status = m ? Number(m[1]) : -1;
      if (paused) socket.pause();
    }
    w.bytes += c.length;
    // Each event is one JSON line with a "type": counting occurrences is enough here.
    for (let at = c.indexOf('"type":"'); at >= 0; at = c.indexOf('"type":"', at + 8)) w.events++;
  });
  socket.on('end', () => (w.endedByServer = true));
  socket.on('error', () => (w.endedByServer = true));
  socket.on('close', () => (w.closed = true));
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${LOAD_TOKEN}\r\nAccept: application/json\r\n\r\n`,
  );
  return w;
}

interface Slowloris {
  socket: TLSSocket;
  sent: number;
  closedByServer: boolean;
}

async function openSlowloris(server: ServerProcess): Promise<Slowloris> {
  const socket = await tlsOpen(server);
  const s: Slowloris = { socket, sent: 0, closedByServer: false };
  socket.on('close', () => (s.closedByServer = true));
  socket.on('error', () => (s.closedByServer = true));
  socket.on('data', () => {});
  return s;
}

/** Sends the next byte of a request that never ends (the headers go on for ever). */
function trickle(s: Slowloris, head: string): void {
  if (s.closedByServer || s.socket.destroyed) return;
  const text = s.sent < head.length ? head[s.sent]! : 'x';
  s.socket.write(text);
  s.sent++;
}

/**
 * Local ports of this process's connections to the server port the kernel has seen closed by the
 * server: in CLOSE_WAIT (a FIN), or gone from the table (a reset). A paused socket reads nothing, so
 * node cannot tell; /proc/net/tcp can.
 */
function closedByPeer(serverPort: number, localPorts: readonly number[]): Set<number> {
  const states = new Map<number, string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4) continue;
      const local = parseInt(f[1]!.split(':')[1]!, 16);
      const remote = parseInt(f[2]!.split(':')[1]!, 16);
      if (remote === serverPort) states.set(local, f[3]!);
    }
  }
  const closed = new Set<number>();
  for (const p of localPorts) {
    const st = states.get(p);
    if (st === undefined || st === '08' /* CLOSE_WAIT */ || st === '07' /* CLOSE */) closed.add(p);
  }
  return closed;
}

// ---------------------------------------------------------------------------------------------
// The prober and the RSS sampler: a worker thread with its own event loop.

const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const { request } = require('node:https');
const { readFileSync } = require('node:fs');
const { url, ca, pid, everyMs, timeoutMs } = workerData;
const latencies = [];
const startedAt = [];
const failures = [];
const rss = [];
let inFlight = 0;
let stopped = false;
function probe() {
  if (inFlight >= 100) { failures.push('more than 100 probes pending'); return; }
  inFlight++;
  const start = performance.now();
  let done = false;
  const finish = (ok, why) => {
    if (done) return;
    done = true;
    inFlight--;
    const ms = performance.now() - start;
    latencies.push(ok ? ms : Math.max(ms, timeoutMs));
    startedAt.push(start);
    if (!ok) failures.push(why);
  };
  const req = request(url + '/readyz', { ca, agent: false, timeout: timeoutMs }, (res) => {
    res.resume();
    res.on('end', () => finish(res.statusCode === 200, 'status ' + res.statusCode));
    res.on('error', (e) => finish(false, e.message));
  });
  req.on('timeout', () => { req.destroy(); finish(false, 'timeout'); });
  req.on('error', (e) => finish(false, e.code || e.message));
  req.end();
}
function sampleRss() {
  try {
    const m = /VmRSS:\\s+(\\d+) kB/.exec(readFileSync('/proc/' + pid + '/status', 'utf8'));
    if (m) rss.push(Number(m[1]) * 1024);
  } catch { /* the process is gone: the survival check says so */ }
}
const probes = setInterval(probe, everyMs);
const sampler = setInterval(sampleRss, 1000);
sampleRss();
parentPort.on('message', () => {
  clearInterval(probes);
  clearInterval(sampler);
  sampleRss();
  // Give pending probes their timeout to finish, then report.
  const deadline = Date.now() + timeoutMs + 500;
  const wait = setInterval(() => {
    if (inFlight === 0 || Date.now() > deadline) {
      clearInterval(wait);
      parentPort.postMessage({ latencies, startedAt, failures, rss });
    }
  }, 50);
});
`;

interface ProbeReport {
  latencies: number[];
  /** When each probe started (the worker's performance.now()), to place the slow ones in time. */
  startedAt: number[];
  failures: string[];
  rss: number[];
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  console.log(
    `soak: ${SECONDS} s; ${N.watchers} watchers (${N.pausedWatchers} never read), ${N.mutators} mutators of ~10 KB objects, ` +
      `${N.patchers} patchers of ${N.ownerReferences} ownerReferences, ${N.slowloris} slowloris connections, /readyz every ${PROBE_EVERY_MS} ms`,
  );
  // The load is a client's, not an administrator's: kube serves system:masters beside every limit.
  const tokenDir = mkdtempSync(join(tmpdir(), 'soak-tokens-'));
  const tokenFile = join(tokenDir, 'tokens.csv');
  writeFileSync(
    tokenFile,
    `${randomBytes(16).toString('hex')},admin,admin,"system:masters"\n${LOAD_TOKEN},soak-client,soak-client\n`,
    { mode: 0o600 },
  );
  const server: ServerProcess = await startServerProcess({ args: [...INFLIGHT_FLAGS, '--token-auth-file', tokenFile] });
  const flagsNote = `with ${INFLIGHT_FLAGS.join(' ')}, the load as a user outside system:masters`;
  const pid = server.child.pid!;
  // Interrupted: take the server down with us rather than leave it running.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      server.child.kill('SIGKILL');
      process.exit(130);
    });
  }
  console.log(`server pid ${pid} at ${server.url} (sqlite), ${flagsNote}`);

  const agent = new Agent({ keepAlive: true, maxSockets: N.mutators + 8, ca: server.ca });
  const call = caller(server, agent, LOAD_TOKEN);
  const adminCall = caller(server, agent, server.token);
  const watchers: Watcher[] = [];
  const loris: Slowloris[] = [];
  const timers: NodeJS.Timeout[] = [];
  const worker = new Worker(PROBER, {
    eval: true,
    workerData: { url: server.url, ca: server.ca, pid, everyMs: PROBE_EVERY_MS, timeoutMs: PROBE_TIMEOUT_MS },
  });
  const codes = new Map<string, number>();
  const count = (key: string): void => void codes.set(key, (codes.get(key) ?? 0) + 1);
  let mutations = 0;
  let connectFailures = 0;
  let survived = false;
  let report: ProbeReport = { latencies: [], startedAt: [], failures: [], rss: [] };
  let loadStart = performance.now();
  let loadEnd = loadStart;
  let closedPaused = 0;
  let readersEnded = 0;
  let lorisClosed = 0;
  let terminatedByServer = 0;
  let stderrTail = '';
  let exitCode: number | null | string = 'not stopped';

  try {
    await setUp(adminCall);
    // RBAC's index follows the bindings through a watch: the load starts once it lets the user in.
    for (let i = 0; (await call('GET', `/apis/${GROUP}/v1/blobs`)).status !== 200; i++) {
      if (i > 400) throw new Error('the load user was never allowed to list the blobs');
      await sleep(25);
    }

    // Connections first (in batches), then the clock starts for everyone at once.
    const setupStart = performance.now();
    await inBatches(N.watchers, OPEN_BATCH, async (i) => {
      try {
        watchers.push(await openWatcher(server, i < N.pausedWatchers, i));
      } catch {
        connectFailures++;
      }
    });
    const head = `GET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${LOAD_TOKEN}\r\nX-Slow: `;
    await inBatches(N.slowloris, OPEN_BATCH, async () => {
      try {
        const s = await openSlowloris(server);
        loris.push(s);
        const tick = (): void => {
          trickle(s, head);
          const [lo, hi] = TRICKLE_MS;
          if (!s.closedByServer) timers.push(setTimeout(tick, lo + Math.random() * (hi - lo)));
        };
        tick();
      } catch {
        connectFailures++;
      }
    });
    console.log(
      `connections open in ${((performance.now() - setupStart) / 1000).toFixed(1)} s (${connectFailures} failed to connect)`,
    );

    loadStart = performance.now();
    const deadline = Date.now() + SECONDS * 1000;
    const mutator = async (m: number): Promise<void> => {
      // The count cap is a backstop: at ~1 ms per request, no loop gets near it in the time given.
      for (let n = 0; n < 1_000_000 && Date.now() < deadline; n++) {
        const name = `m${m}-${n}`;
        const obj = {
          apiVersion: `${GROUP}/v1`,
          kind: 'Blob',
          metadata: { name, labels: { mutator: String(m) } },
          spec: { n, data: PADDING },
        };
        const step = async (verb: string, method: string, path: string, body?: unknown): Promise<Reply | undefined> => {
          try {
            const r = await call(method, path, body === undefined ? undefined : JSON.stringify(body));
            mutations++;
            count(`${verb} ${r.status}`);
            if (r.status === 429) {
              // As client-go: wait what Retry-After says (capped), then go on.
              const after = Number(String(r.headers['retry-after'] ?? '1')) || 1;
              await sleep(Math.min(1000, Math.max(50, after * 1000)));
            }
            return r;
          } catch (err) {
            count(
              `${verb} error: ${err instanceof Error ? err.message.replace(/ \S+ timed out$/, ' timed out').slice(0, 60) : String(err)}`,
            );
            await sleep(100);
            return undefined;
          }
        };
        const created = await step('create', 'POST', COLLECTION, obj);
        if (created?.status !== 201 || Date.now() >= deadline) continue;
        const rv = (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
        await step('update', 'PUT', `${COLLECTION}/${name}`, {
          ...obj,
          metadata: { ...obj.metadata, resourceVersion: rv },
          spec: { n, data: PADDING, updated: true },
        });
        await step('delete', 'DELETE', `${COLLECTION}/${name}`);
      }
    };
    const patcher = async (): Promise<void> => {
      for (let n = 0; n < 1_000_000 && Date.now() < deadline; n++) {
        try {
          const r = await call(
            'PATCH',
            `/api/v1/namespaces/${NS}/configmaps/${OWNED}`,
            OWNERS_PATCH,
            'application/strategic-merge-patch+json',
          );
          count(`ownerReferences patch ${r.status}`);
        } catch (err) {
          count(
            `ownerReferences patch error: ${err instanceof Error ? err.message.replace(/ \S+ timed out$/, ' timed out').slice(0, 60) : String(err)}`,
          );
          await sleep(100);
        }
      }
    };
    await Promise.all([
      ...Array.from({ length: N.mutators }, (_, m) => mutator(m)),
      ...Array.from({ length: N.patchers }, () => patcher()),
    ]);
    loadEnd = performance.now();
    survived = server.child.exitCode === null && server.child.signalCode === null;
  } finally {
    // Whatever happened, nothing outlives this block: timers, the worker, sockets, the server.
    for (const t of timers) clearTimeout(t);
    report = await new Promise<ProbeReport>((resolve) => {
      const timer = setTimeout(() => resolve(report), PROBE_TIMEOUT_MS + 5000);
      worker.once('message', (r: ProbeReport) => (clearTimeout(timer), resolve(r)));
      worker.once('error', () => (clearTimeout(timer), resolve(report)));
      worker.postMessage('stop');
    });
    await worker.terminate();
    // The server's own count of watchers it ended for falling behind.
    const metrics = await adminCall('GET', '/metrics').catch(() => undefined);
    terminatedByServer = [
      ...(metrics?.body ?? '').matchAll(/^apiserver_terminated_watchers_total\{[^}]*\} (\d+)$/gm),
    ].reduce((a, m) => a + Number(m[1]), 0);
    // Slow watchers ended by the server: look before closing anything ourselves.
    const ports = watchers
      .filter((w) => w.paused)
      .map((w) => w.socket.localPort)
      .filter((p): p is number => p !== undefined);
    closedPaused = closedByPeer(server.port, ports).size;
    readersEnded = watchers.filter((w) => !w.paused && (w.endedByServer || w.closed)).length;
    lorisClosed = loris.filter((s) => s.closedByServer).length;
    for (const w of watchers) w.socket.destroy();
    for (const s of loris) s.socket.destroy();
    agent.destroy();
    stderrTail = server.stderr().trimEnd().split('\n').slice(-5).join('\n');
    try {
      exitCode = await server.stop('SIGTERM', 20_000);
    } catch (err) {
      exitCode = err instanceof Error ? err.message : String(err);
    }
    rmSync(tokenDir, { recursive: true, force: true });
  }

  const paused = watchers.filter((w) => w.paused);
  const readers = watchers.filter((w) => !w.paused);
  const statuses = new Map<string, number>();
  for (const w of watchers)
    statuses.set(String(w.status ?? 'none'), (statuses.get(String(w.status ?? 'none')) ?? 0) + 1);

  // ---- figures
  const seconds = (loadEnd - loadStart) / 1000;
  const lat = [...report.latencies].sort((a, b) => a - b);
  const peakRss = Math.max(0, ...report.rss);
  const mib = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MiB`;
  const ms = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'n/a');
  const failureKinds = new Map<string, number>();
  for (const f of report.failures) failureKinds.set(f, (failureKinds.get(f) ?? 0) + 1);
  const ok2xx = [...codes].filter(([k]) => / 2\d\d$/.test(k)).reduce((a, [, v]) => a + v, 0);

  console.log('');
  console.log(`load ran ${seconds.toFixed(1)} s`);
  console.log(
    `server RSS: peak ${mib(peakRss)}, last ${mib(report.rss[report.rss.length - 1] ?? 0)} (${report.rss.length} samples)`,
  );
  console.log(
    `/readyz: ${lat.length} probes, p50 ${ms(percentile(lat, 50))}, p99 ${ms(percentile(lat, 99))}, max ${ms(lat[lat.length - 1] ?? NaN)}, ${report.failures.length} failed${failureKinds.size ? ` (${[...failureKinds].map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`,
  );
  const first = report.startedAt[0] ?? 0;
  const slowest = report.latencies
    .map((l, i) => ({ l, at: ((report.startedAt[i] ?? first) - first) / 1000 }))
    .sort((a, b) => b.l - a.l)
    .slice(0, 5);
  console.log(
    `  slowest probes (seconds after the first probe: latency): ${slowest.map((p) => `+${p.at.toFixed(1)}s: ${ms(p.l)}`).join(', ')}`,
  );
  console.log(
    `mutating requests: ${mutations} in ${seconds.toFixed(1)} s = ${(mutations / seconds).toFixed(1)}/s (${(ok2xx / seconds).toFixed(1)}/s 2xx)`,
  );
  for (const [k, v] of [...codes].sort()) console.log(`  ${k}: ${v}`);
  console.log(
    `watchers: ${watchers.length} open, response status ${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')}`,
  );
  console.log(
    `  readers (${readers.length}): ${readers.reduce((a, w) => a + w.events, 0)} events, ${mib(readers.reduce((a, w) => a + w.bytes, 0))} read, ${readersEnded} ended by the server`,
  );
  console.log(`  never-reading (${paused.length}): ${closedPaused} closed by the server (seen in /proc/net/tcp)`);
  console.log(`  the server's apiserver_terminated_watchers_total: ${terminatedByServer}`);
  console.log(`slowloris: ${loris.length} open, ${lorisClosed} closed by the server`);
  console.log(`server survived: ${survived ? 'yes' : 'NO'}; exit on SIGTERM: ${exitCode}`);
  if (!survived) console.log(`server stderr (tail):\n${stderrTail}`);

  // ---- verdict
  const broken: string[] = [];
  if (!survived) broken.push('the server process died');
  if (peakRss >= BOUNDS.peakRssBytes) broken.push(`peak RSS ${mib(peakRss)} >= ${mib(BOUNDS.peakRssBytes)}`);
  const p99 = percentile(lat, 99);
  if (!(p99 < BOUNDS.readyzP99Ms)) broken.push(`/readyz p99 ${ms(p99)} >= ${BOUNDS.readyzP99Ms} ms`);
  console.log('');
  console.log(
    broken.length
      ? `soak: FAILED: ${broken.join('; ')}`
      : `soak: passed (RSS < ${mib(BOUNDS.peakRssBytes)}, /readyz p99 < ${BOUNDS.readyzP99Ms} ms, no crash)`,
  );
  return broken.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack : String(err));
    process.exit(2);
  },
);
