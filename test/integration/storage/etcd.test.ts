// What only the etcd backend has to survive: etcd restarting or crashing under an open watch, a
// cluster member dying under load, compaction by someone else, an etcd that is not there, and
// etcd's own request size limit. Every test runs against real etcd processes.
import { Etcd3 } from 'etcd3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EtcdStorage, type EtcdOptions } from '../../../storage/etcd.js';
import { isStorageError, type StorageError } from '../../../storage/errors.js';
import { MAX_VALUE_BYTES, type Storage, type WatchEvent } from '../../../storage/interface.js';
import { recordWatch, type WatchRecorder } from '../../helpers/backends.js';
import { startEtcd, startEtcdCluster, type EtcdCluster, type EtcdProcess } from '../../helpers/etcd.js';

/**
 * Writes under `prefix` in a loop, one write at a time: creates, with every fourth write deleting
 * the previous key. A write that fails with Unavailable may or may not have happened, so it is
 * repeated, and KeyExists or NotFound on the repeat means the first attempt went through.
 */
function startWriter(store: Storage, prefix: string) {
  let acked = 0;
  /** The Unavailable failures the writer repeated a write after, in order. */
  const failures: string[] = [];
  let stopped = false;
  const run = (async () => {
    for (let i = 0; !stopped; i++) {
      const remove = i % 4 === 3;
      const key = `${prefix}${remove ? i - 1 : i}`;
      for (let uncertain = false; ; uncertain = true) {
        try {
          await (remove ? store.delete(key) : store.create(key, `v${i}`));
          break;
        } catch (err) {
          if (uncertain && (isStorageError(err, 'KeyExists') || isStorageError(err, 'NotFound'))) break;
          if (!isStorageError(err, 'Unavailable')) throw err;
          failures.push(err.message);
        }
      }
      acked++;
    }
  })();
  return {
    get acknowledged() {
      return acked;
    },
    get failures(): readonly string[] {
      return failures;
    },
    async until(count: number, timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (acked < count) {
        if (Date.now() > deadline) throw new Error(`writer acknowledged ${acked} of ${count} writes`);
        await Promise.race([run, new Promise((r) => setTimeout(r, 10))]);
      }
    },
    async stop(): Promise<void> {
      stopped = true;
      await run;
    },
  };
}

const lastRevision = (events: WatchEvent[]): number => events.at(-1)?.kv.modRevision ?? 0;

/**
 * Checks that the watchers saw exactly what etcd recorded under `prefix` after `from`: the same
 * events, each once, in revision order. The reference is a watch replayed from a fresh connection
 * after the writes, which no failure interrupted.
 */
async function expectEveryEventOnce(
  endpoints: string[],
  prefix: string,
  from: number,
  watchers: WatchRecorder[],
): Promise<void> {
  const reader = await EtcdStorage.connect(endpoints);
  try {
    const end = await reader.currentRevision();
    const reference = recordWatch(reader, prefix, from);
    await reference.until(() => lastRevision(reference.events) >= end, 'the reference replay');
    reference.close();
    const revisions = reference.events.map((e) => e.kv.modRevision);
    expect(revisions).toEqual([...new Set(revisions)].sort((a, b) => a - b));
    for (const w of watchers) {
      await w.until(() => lastRevision(w.events) >= end, 'the watcher to catch up', 15_000);
      expect(w.errors).toEqual([]);
      expect(w.events).toEqual(reference.events);
    }
  } finally {
    await reader.close();
  }
}

async function errorOf(op: Promise<unknown>): Promise<StorageError> {
  const err = await op.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isStorageError(err)) throw new Error(`expected a StorageError, got ${String(err)}`);
  return err;
}

describe('etcd: single member', () => {
  let etcd: EtcdProcess;
  const stores: Storage[] = [];
  const connect = async (prefix?: string, options?: EtcdOptions): Promise<Storage> => {
    const store = await EtcdStorage.connect([etcd.endpoint], prefix, options);
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    etcd = await startEtcd();
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await etcd.destroy();
  });

  it('keeps a watch across an etcd restart and a crash: every event once, in order', async () => {
    const store = await connect();
    const p = '/registry/restart/';
    const from = await store.currentRevision();
    const watch = recordWatch(store, p, from);
    const writer = startWriter(store, p);

    await writer.until(40);
    await etcd.restart();
    await writer.until(writer.acknowledged + 40);
    await etcd.kill();
    await etcd.start();
    await writer.until(writer.acknowledged + 40);
    await writer.stop();

    await expectEveryEventOnce([etcd.endpoint], p, from, [watch]);
    watch.close();
  });

  it('ends a watch with Compacted when its start revision was compacted, by anyone', async () => {
    const mine = await connect();
    const other = await connect();
    const p = '/registry/compact/';
    const a1 = await mine.create(`${p}a`, '1');
    const a2 = await mine.update(`${p}a`, '2', a1.modRevision);
    await mine.update(`${p}a`, '3', a2.modRevision);
    expect(await other.compactedRevision()).toBe(0);

    // Another server compacts: this store only learns of it from etcd.
    await other.compact(a2.modRevision);
    expect(await mine.compactedRevision()).toBe(a2.modRevision);

    const read = await errorOf(mine.get(`${p}a`, { revision: a1.modRevision }));
    expect([read.code, read.compactRevision]).toEqual(['Compacted', a2.modRevision]);

    const watch = recordWatch(mine, p, a1.modRevision - 1);
    await watch.until(() => watch.errors.length > 0, 'the Compacted error');
    const err = watch.errors[0] as StorageError;
    expect([err.code, err.compactRevision, watch.events]).toEqual(['Compacted', a2.modRevision, []]);
    // Compacting at or below the compact revision again is a no-op, as in the SQLite store.
    await mine.compact(a1.modRevision);
    expect(await mine.compactedRevision()).toBe(a2.modRevision);
  });

  it('refuses a value over the limit before sending it, and maps etcd’s own size refusal', async () => {
    // etcd is down: a request sent would end Unavailable (after its retries); TooLarge, with the
    // key, is an answer given without sending anything.
    const store = await connect();
    await etcd.stop();
    const over = await errorOf(store.create('/registry/big/a', 'x'.repeat(MAX_VALUE_BYTES + 1)));
    expect([over.code, over.key]).toEqual(['TooLarge', '/registry/big/a']);
    await etcd.start();

    // etcd's --max-request-bytes counts the whole request, so a value at our limit is refused.
    const atLimit = await errorOf(store.create('/registry/big/a', 'x'.repeat(MAX_VALUE_BYTES)));
    expect([atLimit.code, atLimit.key]).toEqual(['TooLarge', '/registry/big/a']);
  });

  it('adds the key prefix on the wire only', async () => {
    const store = await connect('/tenant-a');
    const neighbour = await connect('/tenant-b');
    const created = await store.create('/registry/things/x', 'v');
    expect(created.key).toBe('/registry/things/x');
    expect((await store.range('/registry/')).kvs.map((kv) => kv.key)).toEqual(['/registry/things/x']);
    expect((await neighbour.range('/registry/')).kvs).toEqual([]);

    const raw = new Etcd3({ hosts: etcd.endpoint });
    try {
      expect(await raw.getAll().prefix('/').keys()).toEqual(['/tenant-a/registry/things/x']);
    } finally {
      raw.close();
    }
    const watch = recordWatch(store, '/registry/', created.modRevision - 1);
    await watch.until(() => watch.events.length === 1, 'the create');
    expect(watch.events[0]!.kv.key).toBe('/registry/things/x');
    watch.close();
  });

  it('reports Unavailable at its request timeout while etcd is down, and ends a watch at its resume timeout', async () => {
    // Bounded by the store's own timeouts, shown against a store given ten minutes for each: when
    // the short ones have given up, the patient one's read and watch are still trying. (A write
    // is not compared: one sent as the connection drops is reported at once, since it may have
    // been applied, and only one that surely was not is retried until the timeout.)
    const store = await connect('', { requestTimeoutMs: 1_000, watchResumeTimeoutMs: 1_500 });
    const patient = await connect('', { requestTimeoutMs: 600_000, watchResumeTimeoutMs: 600_000 });
    const from = await store.currentRevision();
    const watch = recordWatch(store, '/registry/', from);
    const patientWatch = recordWatch(patient, '/registry/', from);
    await etcd.kill();

    const settled = (p: Promise<unknown>): (() => boolean) => {
      let done = false;
      p.then(
        () => (done = true),
        () => (done = true),
      );
      return () => done;
    };
    const patientRead = settled(patient.get('/registry/down'));
    expect(await store.ping()).toBe(false);
    const write = await errorOf(store.create('/registry/down', 'x'));
    expect(write.code).toBe('Unavailable');
    expect((await errorOf(store.get('/registry/down'))).code).toBe('Unavailable');
    expect(patientRead()).toBe(false);

    await watch.until(() => watch.errors.length > 0, 'the watch to give up', 60_000);
    expect((watch.errors[0] as StorageError).code).toBe('Unavailable');
    expect(patientWatch.errors).toEqual([]);

    await etcd.start();
    expect(await store.ping()).toBe(true);
    expect((await store.create('/registry/up', 'x')).key).toBe('/registry/up');
    patientWatch.close();
  });
});

it('fails to connect to an etcd that is not there with one line, once its retries run out', async () => {
  // An etcd stopped: nothing answers at its address. Two connects: one with five seconds to try
  // (on a loaded machine one second can pass before gRPC has even resolved the address), one
  // with ten minutes. The first fails with one line naming the refusal; the second is still
  // retrying then (so retries go on past the refusals, as long as the connect's own timeout
  // allows), and connects once etcd is back.
  const etcd = await startEtcd();
  try {
    await etcd.stop();
    let patientDone = false;
    const patient = EtcdStorage.connect([etcd.endpoint], '', { connectTimeoutMs: 600_000 }).finally(
      () => (patientDone = true),
    );
    const err = await EtcdStorage.connect([etcd.endpoint], '', { connectTimeoutMs: 5_000 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // The whole line in the failure's text (vitest shortens the value it compares).
    expect(err?.message, err?.message).toMatch(
      new RegExp(`^cannot reach etcd at ${etcd.endpoint.replaceAll('.', '\\.')}: .*ECONNREFUSED`),
    );
    expect(err?.message).not.toContain('\n');
    expect(patientDone).toBe(false);
    await etcd.start();
    await (await patient).close();
  } finally {
    await etcd.destroy();
  }
});

describe('etcd: 3-member cluster', () => {
  let cluster: EtcdCluster;
  beforeEach(async () => {
    cluster = await startEtcdCluster(3);
  });
  afterEach(async () => {
    await cluster.destroy();
  });

  it('carries on when the leader is killed: writes stall briefly, watches lose and repeat nothing', async () => {
    const store = await EtcdStorage.connect(cluster.endpoints);
    try {
      const p = '/registry/failover/';
      const from = await store.currentRevision();
      // Each watch has its own stream on a member picked at random: some are on the leader.
      const watches = Array.from({ length: 6 }, () => recordWatch(store, p, from));
      const writer = startWriter(store, p);

      await writer.until(50);
      const leader = await cluster.leader();
      const failedBefore = writer.failures.length;
      await cluster.members[leader]!.kill();
      await writer.until(writer.acknowledged + 150);
      await writer.stop();

      // Writes stall briefly: at most one waits out its deadline (5 s, the one in flight when the
      // leader died: our call's deadline, or etcd's own, which a member answers as "request timed
      // out, possibly due to previous leader failure"); the other failures are the dead member's
      // refused or reset connections, reported at once, and each such write went through again on
      // a live member.
      const failures = writer.failures.slice(failedBefore);
      const waited = (f: string) =>
        /DEADLINE_EXCEEDED|request timed out, possibly due to previous leader failure/.test(f);
      expect(failures.filter(waited).length).toBeLessThanOrEqual(1);
      for (const f of failures.filter((f) => !waited(f)))
        expect(f).toMatch(/ECONNRESET|ECONNREFUSED|Connection dropped|No connection established/);
      await expectEveryEventOnce(cluster.endpoints, p, from, watches);
      for (const w of watches) w.close();
    } finally {
      await store.close();
    }
  });
});
