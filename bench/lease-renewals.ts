// bench/lease-renewals: does the embedded store stay flat under leader-election renewals?
//
// Every elector renews its Lease every 2 s: 43,200 writes per lease per day. kine, k3s's embedded
// store, was seen keeping one Lease at 33k revisions when its compaction fell behind. Here N leases
// are renewed back to back, as fast as the server takes them (a day compressed), against the built
// binary on SQLite with its compactor running on a short interval, and the store's files (state.db,
// -wal, -shm in the data dir) are measured at the start, every tenth of the run and at the end.
// Baseline, from the same run: the size once the leases exist and before any renewal.
//
// By default a fraction of a day (RENEWALS per lease); the projection to a full day is printed.
//   LEASES=50 RENEWALS=43200 for the full day; COMPACTION=1s the compaction interval.
// The compactor keeps about one interval of history (two at most), so the plateau is roughly
// writes/s x interval revisions plus SQLite's WAL: compressed, 1-2k writes/s x 1 s; for real, 25
// writes/s x the default 5 min. A file's size is its high-water mark (no VACUUM): flat means
// compacted pages are reused. Exits 1 when a full (not QUICK) run finds the store still growing.
//
// Run: make build && make bench ONLY=lease-renewals [QUICK=1]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startServerProcess } from '../test/helpers/server-process.js';
import { benchClient } from './client.js';
import { metric, quick, report } from './report.js';
import { formatMicroTime } from '../apimachinery/validation/micro-time.js';

const intEnv = (name: string, fallback: number): number => {
  const v = process.env[name];
  const n = v === undefined || v === '' ? fallback : Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not ${v}`);
  return n;
};

const LEASES = intEnv('LEASES', 50);
const RENEWALS = intEnv('RENEWALS', quick ? 400 : 1000);
const COMPACTION = process.env.COMPACTION ?? '1s';
const RENEWALS_PER_DAY = (24 * 3600) / 2;
/** Samples over the run (every tenth). */
const SAMPLES = 10;
/** "Flat": the second half of the run grows the store by less than this share of its midpoint size. */
const FLAT_TOLERANCE = 0.1;
const NAMESPACE = 'default';
const LEASES_PATH = `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE}/leases`;

interface StoreSize {
  db: number;
  wal: number;
  shm: number;
  total: number;
}

/** The SQLite store's files in the data dir (state.db and its -wal and -shm). */
function storeSize(dataDir: string): StoreSize {
  const size = (f: string): number => {
    try {
      return statSync(join(dataDir, f)).size;
    } catch {
      return 0;
    }
  };
  const files = readdirSync(dataDir).filter((f) => f.startsWith('state.db'));
  const db = size('state.db');
  const wal = size('state.db-wal');
  const shm = size('state.db-shm');
  return { db, wal, shm, total: files.reduce((n, f) => n + size(f), 0) };
}

/** metav1.MicroTime now, as Go writes it. */
const microTimeNow = (): string => formatMicroTime(Math.floor((performance.timeOrigin + performance.now()) * 1000));

interface Lease {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion?: string };
  spec: {
    holderIdentity: string;
    leaseDurationSeconds: number;
    acquireTime: string;
    renewTime: string;
    leaseTransitions: number;
  };
}

const kib = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;

const server = await startServerProcess({ args: ['--log-level', 'warn', '--etcd-compaction-interval', COMPACTION] });
const c = benchClient(server);
try {
  const start = storeSize(server.dataDir);

  // The leases, as each elector's first acquisition creates them.
  const leases: Lease[] = [];
  for (let i = 0; i < LEASES; i++) {
    const now = microTimeNow();
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: `elector-${i}` },
      spec: {
        holderIdentity: `elector-${i}-${process.pid}`,
        leaseDurationSeconds: 15,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      },
    };
    const r = await c.call('POST', LEASES_PATH, JSON.stringify(body));
    if (r.status !== 201) throw new Error(`create lease ${i}: ${r.status} ${r.body.slice(0, 300)}`);
    leases.push(JSON.parse(r.body) as Lease);
  }
  const baseline = storeSize(server.dataDir);

  console.log(
    `lease-renewals: ${LEASES} leases x ${RENEWALS} renewals (${((RENEWALS / RENEWALS_PER_DAY) * 100).toFixed(1)}% of a day at one per 2 s), compaction every ${COMPACTION}`,
  );
  console.log(`  store at start:                 ${kib(start.total)}`);
  console.log(`  store after creating the leases: ${kib(baseline.total)} (baseline)`);
  console.log('  progress   renewals   elapsed   writes/s   state.db      -wal          total');

  const total = LEASES * RENEWALS;
  const samples: { done: number; size: StoreSize }[] = [];
  let done = 0;
  let nextSample = total / SAMPLES;
  const started = performance.now();
  const sample = (): void => {
    const size = storeSize(server.dataDir);
    samples.push({ done, size });
    const s = (performance.now() - started) / 1000;
    console.log(
      `  ${`${Math.round((done / total) * 100)}%`.padStart(8)}   ${String(done).padStart(8)}   ${`${s.toFixed(1)} s`.padStart(7)}   ${(done / s).toFixed(0).padStart(8)}   ${kib(size.db).padStart(11)}   ${kib(size.wal).padStart(11)}   ${kib(size.total).padStart(11)}`,
    );
  };

  // One loop per elector: a leader renews with the resourceVersion its last write returned (client-go
  // GETs first; the GET writes nothing, so it is left out to spend the time on writes).
  await Promise.all(
    leases.map(async (lease) => {
      let current = lease;
      for (let n = 0; n < RENEWALS; n++) {
        const body: Lease = { ...current, spec: { ...current.spec, renewTime: microTimeNow() } };
        const r = await c.call('PUT', `${LEASES_PATH}/${lease.metadata.name}`, JSON.stringify(body));
        if (r.status !== 200) throw new Error(`renew ${lease.metadata.name}: ${r.status} ${r.body.slice(0, 300)}`);
        current = JSON.parse(r.body) as Lease;
        done++;
        if (done >= nextSample) {
          nextSample += total / SAMPLES;
          sample();
        }
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  const end = storeSize(server.dataDir);
  const maxSeen = Math.max(baseline.total, ...samples.map((s) => s.size.total));

  // Growth over the second half, when compaction has long been running: the trend a longer run follows.
  const mid = samples[Math.floor(SAMPLES / 2) - 1]!;
  const last = samples[samples.length - 1]!;
  const perRenewal = (last.size.total - mid.size.total) / Math.max(1, last.done - mid.done);
  const projectedDay = last.size.total + Math.max(0, perRenewal) * (LEASES * RENEWALS_PER_DAY - last.done);
  const flat = last.size.total - mid.size.total <= FLAT_TOLERANCE * mid.size.total;

  console.log(
    `  store at end:                    ${kib(end.total)} (${(end.total / baseline.total).toFixed(2)}x the baseline; max seen ${kib(maxSeen)})`,
  );
  console.log(
    `  ${total} renewals in ${elapsedS.toFixed(1)} s (${(total / elapsedS).toFixed(0)}/s); a real day of ${LEASES} leases is ${LEASES * RENEWALS_PER_DAY} renewals`,
  );
  console.log(
    `  second half: ${perRenewal >= 0 ? '+' : ''}${perRenewal.toFixed(2)} bytes per renewal; projected to a full day: ${kib(projectedDay)}`,
  );
  console.log(
    `  ${flat ? 'FLAT' : 'GROWING'}: the second half changed the store by ${kib(last.size.total - mid.size.total)} (${(((last.size.total - mid.size.total) / mid.size.total) * 100).toFixed(1)}% of ${kib(mid.size.total)}; flat means at most ${FLAT_TOLERANCE * 100}%)`,
  );
  // The plateau comes after tens of thousands of renewals (writes/s x interval of history, plus the WAL).
  if (quick) console.log('  QUICK: too short to reach the plateau; the verdict and the projection need a full run');

  report('lease-renewals', 'after creating the leases', [
    metric('store size at end', end.total / 1024, baseline.total / 1024, 'KiB', 'lower'),
    metric('largest store size seen', maxSeen / 1024, baseline.total / 1024, 'KiB', 'lower'),
    metric('store size projected to a day', projectedDay / 1024, baseline.total / 1024, 'KiB', 'lower'),
  ]);
  // A QUICK run may end before the plateau: its verdict is a hint, not a failure.
  if (!flat && !quick) process.exitCode = 1;
} finally {
  c.agent.destroy();
  await server.stop();
}
