// bench/testing: what the testing API costs and takes.
//
//   Snapshots, in storage: for 100, 1,000 and 10,000 ConfigMaps (~300 B each) on SQLite (a durable
//   file) and etcd, the time of saveSnapshot beside a range of the same keys (what a save must at
//   least read), and of restoreSnapshot writing every object back (all deleted since the save) or
//   away (all created since) beside the same creates or deletes as one write each, 32 in flight.
//   Snapshots, through the API (an in-process server with the testing API): POST a Snapshot until
//   it is Ready, and POST its restore, for 1,000 ConfigMaps, beside a LIST of them; medians of
//   RUNS rounds. On etcd with its defaults, a restore of 1,000 is refused as one transaction and
//   written in pieces (storage/etcd.ts).
//   The request path: GETs/s of one ConfigMap from a server with the testing API beside one
//   without it, and with a Fault in force that matches nothing. Off, the front door is handed the
//   API handler itself (server/index.ts), so nothing is added: the first ratio shows what being on
//   costs when no Fault acts.
//
// Printed, never asserted. Run: make build && make bench ONLY=testing [QUICK=1]
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../apimachinery/log.js';
import { type ServerHandle, startServer } from '../server/index.js';
import { EtcdStorage } from '../storage/etcd.js';
import type { Storage } from '../storage/interface.js';
import { SqliteStorage } from '../storage/sqlite.js';
import { startEtcd } from '../test/helpers/etcd.js';
import { apiClient } from '../test/helpers/api-client.js';
import { type Metric, elapsedMs, inFlight, median, metric, paired, quick, rate, report } from './report.js';

const SIZES = quick ? [100, 1_000] : [100, 1_000, 10_000];
const API_OBJECTS = quick ? 200 : 1_000;
const IN_FLIGHT = 32;
const GETS = quick ? 1_000 : 4_000;
const RUNS = quick ? 3 : 7;
const PREFIX = '/registry/configmaps/bench/';
const SCOPE = { prefix: '/registry/', exclude: [] };

const value = (i: number): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: 'bench',
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      creationTimestamp: '2030-01-01T00:00:00Z',
      labels: { app: 'bench', index: String(i) },
    },
    data: { size: String(i % 10), note: 'x'.repeat(120) },
  });
const key = (i: number): string => `${PREFIX}cm-${String(i).padStart(6, '0')}`;

/** save, restore (every object back, and every one away), each beside its one-write-at-a-time baseline. */
async function storageRound(backend: string, store: Storage, n: number): Promise<Metric[]> {
  await store.saveSnapshot('empty', SCOPE);
  const creates = await elapsedMs(() => inFlight(n, IN_FLIGHT, (i) => store.create(key(i), value(i))));
  const save = await elapsedMs(() => store.saveSnapshot('full', SCOPE));
  const read = await elapsedMs(() => store.range(SCOPE.prefix));
  const away = await elapsedMs(() => store.restoreSnapshot('empty'));
  const back = await elapsedMs(() => store.restoreSnapshot('full'));
  const deletes = await elapsedMs(() => inFlight(n, IN_FLIGHT, (i) => store.delete(key(i))));
  await store.deleteSnapshot('empty');
  await store.deleteSnapshot('full');
  const at = `${backend}_${n}`;
  return [
    metric(`snapshot_save_${at}_vs_range`, save, read, 'ms', 'lower'),
    metric(`snapshot_restore_creating_${at}_vs_creates`, back, creates, 'ms', 'lower'),
    metric(`snapshot_restore_deleting_${at}_vs_deletes`, away, deletes, 'ms', 'lower'),
  ];
}

/** A Snapshot saved and restored through the API, beside a LIST of what it holds. */
async function apiRound(backend: string, server: ServerHandle): Promise<Metric[]> {
  const call = apiClient(server);
  const testing = server.testing!;
  await call('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } },
  });
  await testing.snapshots.save('api-empty');
  await inFlight(API_OBJECTS, IN_FLIGHT, (i) =>
    call('POST', '/api/v1/namespaces/bench/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { note: 'x'.repeat(120) } },
    }),
  );
  // Rounds of a LIST, a save, a restore of none and one of all: medians, each beside the LISTs'.
  const lists: number[] = [];
  const saves: number[] = [];
  const aways: number[] = [];
  const backs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    lists.push(await elapsedMs(() => call('GET', '/api/v1/namespaces/bench/configmaps')));
    saves.push(await elapsedMs(() => testing.snapshots.save(`api-full-${r}`)));
    aways.push(await elapsedMs(() => testing.snapshots.restore('api-empty')));
    backs.push(await elapsedMs(() => testing.snapshots.restore(`api-full-${r}`)));
  }
  const list = median(lists);
  const at = `${backend}_${API_OBJECTS}`;
  return [
    metric(`api_snapshot_save_${at}_vs_list`, median(saves), list, 'ms', 'lower'),
    metric(`api_snapshot_restore_deleting_${at}_vs_list`, median(aways), list, 'ms', 'lower'),
    metric(`api_snapshot_restore_creating_${at}_vs_list`, median(backs), list, 'ms', 'lower'),
  ];
}

/** GETs/s of one ConfigMap, 32 in flight over kept-alive connections. */
function gets(server: ServerHandle): () => Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT, ca: server.caCert });
  const get = (): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(
        `${server.url}/api/v1/namespaces/default/configmaps/probe`,
        { agent, headers: { authorization: `Bearer ${server.token}` } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
  return () =>
    rate(GETS, () =>
      inFlight(GETS, IN_FLIGHT, async () => {
        const status = await get();
        if (status !== 200) throw new Error(`GET: ${status}`);
      }),
    );
}

async function requestPath(): Promise<Metric[]> {
  const off = await startServer({ logger: silentLogger });
  const on = await startServer({ logger: silentLogger, testing: true });
  try {
    for (const s of [off, on])
      await apiClient(s)('POST', '/api/v1/namespaces/default/configmaps', {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' } },
      });
    const [onRate, offRate] = await paired(RUNS, gets(on), gets(off));
    await on.testing!.faults.inject('elsewhere', {
      match: { namespaces: ['nowhere'] },
      action: { error: { code: 500 } },
    });
    const [faultRate, offAgain] = await paired(RUNS, gets(on), gets(off));
    return [
      metric('gets_per_s_testing_on_vs_off', onRate, offRate, 'req/s', 'higher'),
      metric('gets_per_s_one_fault_not_matching_vs_off', faultRate, offAgain, 'req/s', 'higher'),
    ];
  } finally {
    await on.close();
    await off.close();
  }
}

async function main(): Promise<void> {
  const metrics: Metric[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-testing-'));
  const etcd = await startEtcd();
  try {
    for (const n of SIZES) {
      const sqlite = SqliteStorage.open(join(dir, `state-${n}.db`));
      try {
        metrics.push(...(await storageRound('sqlite', sqlite, n)));
      } finally {
        await sqlite.close();
      }
      const onEtcd = await EtcdStorage.connect([etcd.endpoint], `/bench-${n}`);
      try {
        metrics.push(...(await storageRound('etcd', onEtcd, n)));
      } finally {
        await onEtcd.close();
      }
    }
    const viaSqlite = await startServer({ logger: silentLogger, testing: true, dataDir: join(dir, 'api') });
    try {
      metrics.push(...(await apiRound('sqlite', viaSqlite)));
    } finally {
      await viaSqlite.close();
    }
    const viaEtcd = await startServer({
      logger: silentLogger,
      testing: true,
      etcdServers: [etcd.endpoint],
      etcdPrefix: '/bench-api',
    });
    try {
      metrics.push(...(await apiRound('etcd', viaEtcd)));
    } finally {
      await viaEtcd.close();
    }
    metrics.push(...(await requestPath()));
  } finally {
    await etcd.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
  report('testing', 'baseline', metrics);
}

await main();
