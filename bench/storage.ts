// bench/storage: our storage layer against the raw client doing the same work in the same run.
//
//   sqlite: SqliteStorage (revision log, synchronous=FULL) vs a plain better-sqlite3 table with the
//           same journal and durability settings, one row per transaction.
//   etcd:   EtcdStorage vs the etcd3 client sending the same requests (the same txn for create and
//           CAS), plus a plain put loop, to show what etcd's txn path itself costs.
//
// Run: make bench ONLY=storage [QUICK=1]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { EtcdStorage } from '../storage/etcd.js';
import type { Storage } from '../storage/interface.js';
import { SqliteStorage } from '../storage/sqlite.js';
import { startEtcd } from '../test/helpers/etcd.js';
import { elapsedMs, inFlight, metric, paired, quick, rate, report, type Metric } from './report.js';

const N = {
  creates: quick ? 600 : 3000,
  casPerKey: quick ? 10 : 50,
  rangeKeys: quick ? 2000 : 10_000,
  runs: quick ? 1 : 5,
};
const IN_FLIGHT = 64;
const VALUE = JSON.stringify({ kind: 'Bench', spec: { data: 'x'.repeat(980) } });

/** The raw client's version of each workload; each returns what the matching Storage call does. */
interface Raw {
  create(key: string): Promise<void>;
  update(key: string, expected: number): Promise<number>;
  /** A full read of every key under the prefix: returns how many. */
  range(prefix: string): Promise<number>;
  /** Every change under the prefix after `after`, delivered to the caller: resolves after `count`. */
  replay(prefix: string, after: number, count: number): Promise<void>;
  /** Loads `count` keys under the prefix for range/replay; returns the revision before the load. */
  load(prefix: string, count: number): Promise<number>;
  close(): Promise<void>;
}

let run = 0;
const fresh = (what: string): string => `/bench/${what}/${run++}/`;
const key = (prefix: string, i: number): string => `${prefix}${String(i).padStart(6, '0')}`;

async function oursCreates(store: Storage): Promise<number> {
  const p = fresh('create');
  return rate(N.creates, () => inFlight(N.creates, IN_FLIGHT, (i) => store.create(key(p, i), VALUE)));
}

async function rawCreates(raw: Raw): Promise<number> {
  const p = fresh('create');
  return rate(N.creates, () => inFlight(N.creates, IN_FLIGHT, (i) => raw.create(key(p, i))));
}

/** 64 keys, one writer each, every update a compare-and-swap on the revision it last wrote. */
async function oursCas(store: Storage): Promise<number> {
  const p = fresh('cas');
  const revs = await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => store.create(key(p, i), VALUE)));
  return rate(IN_FLIGHT * N.casPerKey, () =>
    Promise.all(
      revs.map(async (kv, i) => {
        let rev = kv.modRevision;
        for (let n = 0; n < N.casPerKey; n++) rev = (await store.update(key(p, i), VALUE, rev)).modRevision;
      }),
    ),
  );
}

async function rawCas(raw: Raw): Promise<number> {
  const p = fresh('cas');
  const revs: number[] = [];
  for (let i = 0; i < IN_FLIGHT; i++) {
    await raw.create(key(p, i));
    revs.push(await raw.update(key(p, i), -1));
  }
  return rate(IN_FLIGHT * N.casPerKey, () =>
    Promise.all(
      revs.map(async (first, i) => {
        let rev = first;
        for (let n = 0; n < N.casPerKey; n++) rev = await raw.update(key(p, i), rev);
      }),
    ),
  );
}

async function loadOurs(store: Storage, prefix: string): Promise<number> {
  const before = await store.currentRevision();
  await inFlight(N.rangeKeys, IN_FLIGHT, (i) => store.create(key(prefix, i), VALUE));
  return before;
}

async function oursReplay(store: Storage, prefix: string, after: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let seen = 0;
    const handle = store.watch(prefix, after, {
      onEvents(events) {
        seen += events.length;
        if (seen >= N.rangeKeys) {
          handle.close();
          resolve();
        }
      },
      onError: reject,
    });
  });
}

async function measure(label: string, store: Storage, raw: Raw, extra: () => Promise<Metric[]>): Promise<Metric[]> {
  const ourPrefix = fresh('range');
  const rawPrefix = fresh('range');
  const ourBefore = await loadOurs(store, ourPrefix);
  const rawBefore = await raw.load(rawPrefix, N.rangeKeys);
  const count = async (n: Promise<number>): Promise<void> => {
    if ((await n) !== N.rangeKeys) throw new Error(`range returned ${await n} keys, expected ${N.rangeKeys}`);
  };
  const creates = await paired(
    N.runs,
    () => oursCreates(store),
    () => rawCreates(raw),
  );
  const cas = await paired(
    N.runs,
    () => oursCas(store),
    () => rawCas(raw),
  );
  const range = await paired(
    N.runs + 4,
    () => elapsedMs(() => count(store.range(ourPrefix).then((r) => r.kvs.length))),
    () => elapsedMs(() => count(raw.range(rawPrefix))),
  );
  const replay = await paired(
    N.runs + 2,
    () => rate(N.rangeKeys, () => oursReplay(store, ourPrefix, ourBefore)),
    () => rate(N.rangeKeys, () => raw.replay(rawPrefix, rawBefore, N.rangeKeys)),
  );
  return [
    metric(`${label} creates/s (${IN_FLIGHT} in flight)`, ...creates, 'ops/s', 'higher'),
    metric(`${label} CAS updates/s (${IN_FLIGHT} in flight)`, ...cas, 'ops/s', 'higher'),
    metric(`${label} range of ${N.rangeKeys} keys`, ...range, 'ms', 'lower'),
    metric(`${label} watch replay events/s`, ...replay, 'events/s', 'higher'),
    ...(await extra()),
  ];
}

/** A plain table per workload, same journal mode and durability as SqliteStorage. */
function rawSqlite(path: string): Raw {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`
    CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, rev INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE events (id INTEGER PRIMARY KEY, key TEXT NOT NULL, value TEXT NOT NULL);`);
  const insert = db.prepare('INSERT INTO events (key, value) VALUES (?, ?)');
  const put = db.prepare('INSERT INTO kv (key, value, rev) VALUES (?, ?, 0)');
  const cas = db.prepare('UPDATE kv SET value = ?, rev = rev + 1 WHERE key = ? AND rev = ?');
  const current = db.prepare<[string], { rev: number }>('SELECT rev FROM kv WHERE key = ?');
  const range = db.prepare<[string, string], { key: string; value: string }>(
    'SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key',
  );
  const replay = db.prepare<[number, string, string], { id: number; key: string; value: string }>(
    'SELECT id, key, value FROM events WHERE id > ? AND key >= ? AND key < ? ORDER BY id',
  );
  const maxId = db.prepare<[], { id: number | null }>('SELECT MAX(id) AS id FROM events');
  const end = (prefix: string): string =>
    prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  return {
    async create(k) {
      insert.run(k, VALUE);
    },
    async update(k, expected) {
      if (expected < 0) {
        put.run(k, VALUE);
        return 0;
      }
      if (cas.run(VALUE, k, expected).changes !== 1) throw new Error(`raw CAS lost on ${k}`);
      return current.get(k)!.rev;
    },
    async range(prefix) {
      return range.all(prefix, end(prefix)).map((r) => ({ key: r.key, value: r.value })).length;
    },
    async replay(prefix, after, count) {
      const rows = replay.all(after, prefix, end(prefix)).map((r) => ({ rev: r.id, key: r.key, value: r.value }));
      if (rows.length !== count) throw new Error(`raw replay saw ${rows.length} rows, expected ${count}`);
    },
    async load(prefix, count) {
      const before = maxId.get()?.id ?? 0;
      db.transaction(() => {
        for (let i = 0; i < count; i++) {
          insert.run(key(prefix, i), VALUE);
          put.run(key(prefix, i), VALUE);
        }
      })();
      return before;
    },
    async close() {
      db.close();
    },
  };
}

function rawEtcd(endpoint: string): Raw & { put(key: string): Promise<void> } {
  const client = new Etcd3({ hosts: endpoint, grpcOptions: { 'grpc.max_receive_message_length': -1 } });
  const kv = client.kv;
  const k = (s: string): Buffer => Buffer.from(s);
  const v = Buffer.from(VALUE);
  const prefixEnd = (p: string): Buffer => {
    const b = k(p);
    b[b.length - 1]! += 1;
    return b;
  };
  const absent = (key: Buffer) => ({ key, target: 'Create' as const, result: 'Equal' as const, create_revision: 0 });
  return {
    async put(key) {
      await kv.put({ key: k(key), value: v });
    },
    async create(key) {
      const res = await kv.txn({ compare: [absent(k(key))], success: [{ request_put: { key: k(key), value: v } }] });
      if (!res.succeeded) throw new Error(`raw create lost on ${key}`);
    },
    async update(key, expected) {
      if (expected < 0) return Number((await kv.range({ key: k(key) })).kvs[0]!.mod_revision);
      const cur = { request_range: { key: k(key), keys_only: true } };
      const res = await kv.txn({
        compare: [{ key: k(key), target: 'Mod', result: 'Equal', mod_revision: expected }],
        success: [{ request_put: { key: k(key), value: v } }, cur],
        failure: [cur],
      });
      if (!res.succeeded) throw new Error(`raw CAS lost on ${key}`);
      return Number(res.header.revision);
    },
    async range(prefix) {
      const res = await kv.range({ key: k(prefix), range_end: prefixEnd(prefix) });
      return res.kvs.map((x) => ({ key: x.key.toString(), value: x.value.toString(), rev: Number(x.mod_revision) }))
        .length;
    },
    async replay(prefix, after, count) {
      const watcher = await client
        .watch()
        .prefix(prefix)
        .startRevision(String(after + 1))
        .withPreviousKV()
        .create();
      await new Promise<void>((resolve) => {
        let seen = 0;
        watcher.on('data', (res) => {
          seen += res.events.map((e) => ({ key: e.kv.key.toString(), value: e.kv.value.toString() })).length;
          if (seen >= count) resolve();
        });
      });
      await watcher.cancel();
    },
    async load(prefix, count) {
      const before = Number((await kv.range({ key: k('/'), keys_only: true, limit: 1 })).header.revision);
      await inFlight(count, IN_FLIGHT, (i) => this.create(key(prefix, i)));
      return before;
    },
    async close() {
      client.close();
    },
  };
}

async function main(): Promise<void> {
  const metrics: Metric[] = [];

  const dir = mkdtempSync(join(tmpdir(), 'bench-storage-'));
  try {
    const store = SqliteStorage.open(join(dir, 'ours.db'));
    const raw = rawSqlite(join(dir, 'raw.db'));
    metrics.push(...(await measure('sqlite', store, raw, async () => [])));
    await store.close();
    await raw.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const etcd = await startEtcd();
  try {
    const store = await EtcdStorage.connect([etcd.endpoint]);
    const raw = rawEtcd(etcd.endpoint);
    metrics.push(
      ...(await measure('etcd', store, raw, async () => {
        const p = fresh('put');
        const [creates, puts] = await paired(
          N.runs,
          () => oursCreates(store),
          () => rate(N.creates, () => inFlight(N.creates, IN_FLIGHT, (i) => raw.put(key(p, i)))),
        );
        return [metric(`etcd creates/s vs raw etcd3 put (no guard)`, creates, puts, 'ops/s', 'higher')];
      })),
    );
    await store.close();
    await raw.close();
  } finally {
    await etcd.destroy();
  }

  report('storage', 'raw client', metrics);
}

await main();
