// The storage contract, run against every backend in backendFactories on real stores. Each test
// writes under its own key prefix, and asserts revisions relative to what it observed, so the suite
// also holds on a store that other tests share.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageError, type StorageError, type StorageErrorCode } from '../../../storage/errors.js';
import { MAX_VALUE_BYTES, type KeyValue, type Storage, type WatchEvent } from '../../../storage/interface.js';
import { backendFactories, recordWatch, type BackendFixture } from '../../helpers/backends.js';

const run = randomUUID().slice(0, 8);
let counter = 0;
const freshPrefix = (): string => `/registry/contract-${run}/${counter++}/`;

async function storageError(op: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  const err = await op.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isStorageError(err, code)) throw new Error(`expected a ${code} StorageError, got ${String(err)}`);
  return err;
}

const kv = (key: string, value: string, createRevision: number, modRevision: number): KeyValue => ({
  key,
  value,
  createRevision,
  modRevision,
});

describe.each(backendFactories.map((f) => [f.name, f] as const))('storage contract: %s', (_name, factory) => {
  let fixture: BackendFixture;
  let store: Storage;

  beforeAll(async () => {
    fixture = await factory.create();
    store = await fixture.open();
  });
  afterAll(async () => {
    await fixture?.teardown();
  });

  it('answers ping', async () => {
    expect(await store.ping()).toBe(true);
  });

  it('creates and gets; create on an existing key is KeyExists', async () => {
    const p = freshPrefix();
    const created = await store.create(`${p}a`, 'v1');
    expect(created).toEqual(kv(`${p}a`, 'v1', created.modRevision, created.modRevision));
    expect(await store.get(`${p}a`)).toEqual(created);
    expect(await store.get(`${p}missing`)).toBeUndefined();

    const err = await storageError(store.create(`${p}a`, 'v2'), 'KeyExists');
    expect(err.key).toBe(`${p}a`);
    expect(await store.get(`${p}a`)).toEqual(created);
  });

  it("answers a key's modRevision without its value where the backend can: as get's, undefined once gone", async () => {
    if (!store.modRevision) return;
    const p = freshPrefix();
    expect(await store.modRevision(`${p}a`)).toBeUndefined();
    const created = await store.create(`${p}a`, 'v1');
    expect(await store.modRevision(`${p}a`)).toBe(created.modRevision);
    const updated = await store.update(`${p}a`, 'v2', created.modRevision);
    expect(await store.modRevision(`${p}a`)).toBe(updated.modRevision);
    expect(await store.modRevision(`${p}a`)).toBe((await store.get(`${p}a`))!.modRevision);
    await store.delete(`${p}a`);
    expect(await store.modRevision(`${p}a`)).toBeUndefined();
  });

  it('updates only from the current revision: Conflict on a stale one, NotFound on a missing key', async () => {
    const p = freshPrefix();
    const v1 = await store.create(`${p}a`, 'v1');
    const v2 = await store.update(`${p}a`, 'v2', v1.modRevision);
    expect(v2).toEqual(kv(`${p}a`, 'v2', v1.modRevision, v2.modRevision));
    expect(v2.modRevision).toBeGreaterThan(v1.modRevision);

    const err = await storageError(store.update(`${p}a`, 'v3', v1.modRevision), 'Conflict');
    expect(err.actualRevision).toBe(v2.modRevision);
    expect(await store.get(`${p}a`)).toEqual(v2);

    await storageError(store.update(`${p}missing`, 'x', v1.modRevision), 'NotFound');
  });

  it('deletes, optionally from a revision, returning the last value at the delete revision', async () => {
    const p = freshPrefix();
    const a = await store.create(`${p}a`, 'a1');
    await storageError(store.delete(`${p}missing`), 'NotFound');
    const err = await storageError(store.delete(`${p}a`, a.modRevision - 1), 'Conflict');
    expect(err.actualRevision).toBe(a.modRevision);
    expect(await store.get(`${p}a`)).toEqual(a);

    const deleted = await store.delete(`${p}a`, a.modRevision);
    expect(deleted).toEqual(kv(`${p}a`, 'a1', a.modRevision, await store.currentRevision()));
    expect(deleted.modRevision).toBeGreaterThan(a.modRevision);
    expect(await store.get(`${p}a`)).toBeUndefined();
    await storageError(store.delete(`${p}a`), 'NotFound');
    await storageError(store.update(`${p}a`, 'x', deleted.modRevision), 'NotFound');

    const b = await store.create(`${p}b`, 'b1');
    expect((await store.delete(`${p}b`)).value).toBe('b1');
    expect(await store.get(`${p}b`)).toBeUndefined();
    expect(b.modRevision).toBeGreaterThan(deleted.modRevision);
  });

  it('strictly increases revisions; each write returns the current revision', async () => {
    const p = freshPrefix();
    let last = await store.currentRevision();
    let aRevision = 0;
    const writes: Array<() => Promise<KeyValue>> = [
      async () => {
        const a = await store.create(`${p}a`, '1');
        aRevision = a.modRevision;
        return a;
      },
      () => store.create(`${p}b`, '1'),
      () => store.update(`${p}a`, '2', aRevision),
      () => store.delete(`${p}b`),
      () => store.create(`${p}b`, '2'),
    ];
    for (const write of writes) {
      const { modRevision } = await write();
      expect(modRevision).toBeGreaterThan(last);
      expect(await store.currentRevision()).toBe(modRevision);
      last = modRevision;
    }
  });

  it('keeps createRevision across updates and starts a new one after delete and create', async () => {
    const p = freshPrefix();
    const c1 = await store.create(`${p}a`, '1');
    const u1 = await store.update(`${p}a`, '2', c1.modRevision);
    const u2 = await store.update(`${p}a`, '3', u1.modRevision);
    expect([u1.createRevision, u2.createRevision]).toEqual([c1.modRevision, c1.modRevision]);
    await store.delete(`${p}a`);
    const c2 = await store.create(`${p}a`, '4');
    expect(c2.createRevision).toBe(c2.modRevision);
    expect(c2.createRevision).toBeGreaterThan(u2.modRevision);
  });

  it('ranges in ascending key order', async () => {
    const p = freshPrefix();
    const names = ['b', 'a', 'a/b', 'a0', 'A', 'z', '-', 'a/a/a', 'ab'];
    for (const n of names) await store.create(`${p}${n}`, n);
    const res = await store.range(p);
    expect(res.kvs.map((k) => k.key)).toEqual(names.map((n) => `${p}${n}`).sort());
    expect(res.kvs.every((k) => k.value === k.key.slice(p.length))).toBe(true);
    expect(res.more).toBe(false);
    expect(res.revision).toBe(await store.currentRevision());
    expect((await store.range(`${p}nothing/`)).kvs).toEqual([]);
  });

  it('orders non-ASCII keys by UTF-8 bytes and matches non-ASCII prefixes', async () => {
    const p = freshPrefix();
    // JavaScript's default sort puts U+1F600 (a surrogate pair) before U+FFFD; UTF-8 puts it after.
    const names = [
      ...['\u{1F600}', '\uFFFD', 'é', 'éa', 'ê', 'z'],
      ...['\uD7FF', '\uD7FFa', '\uE000', '\u{10FFFF}', '\u{10FFFF}a'],
    ];
    for (const n of names) await store.create(`${p}${n}`, n);
    const byBytes = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect((await store.range(p)).kvs.map((k) => k.value)).toEqual(byBytes);
    expect((await store.range(`${p}é`)).kvs.map((k) => k.value)).toEqual(['é', 'éa']);
    // The code point after U+D7FF is U+E000: the surrogates in between have no UTF-8 form.
    expect((await store.range(`${p}\uD7FF`)).kvs.map((k) => k.value)).toEqual(['\uD7FF', '\uD7FFa']);
    expect((await store.range(`${p}\u{10FFFF}`)).kvs.map((k) => k.value)).toEqual(['\u{10FFFF}', '\u{10FFFF}a']);
  });

  it('pages with limit and startKey over every key exactly once, at the first page revision', async () => {
    const p = freshPrefix();
    const keys = Array.from({ length: 23 }, (_, i) => `${p}k${String(i).padStart(2, '0')}`);
    for (const k of [...keys].reverse()) await store.create(k, k);

    const seen: string[] = [];
    let startKey: string | undefined;
    let revision: number | undefined;
    for (let page = 0; ; page++) {
      const res = await store.range(p, { limit: 5, startKey, revision });
      revision ??= res.revision;
      expect(res.revision).toBe(revision);
      seen.push(...res.kvs.map((k) => k.key));
      // Writes between pages must not show in later pages read at the first page's revision.
      if (page === 0) {
        await store.create(`${p}k00a`, 'late');
        await store.delete(keys[20]);
      }
      if (!res.more) break;
      expect(res.kvs).toHaveLength(5);
      startKey = `${res.kvs[res.kvs.length - 1].key}\x00`;
    }
    expect(seen).toEqual(keys);

    const current = await store.range(p, { startKey: keys[21] });
    expect(current.kvs.map((k) => k.key)).toEqual(keys.slice(21));
    const exact = await store.range(p, { limit: 24 });
    expect(exact.kvs).toHaveLength(23);
    expect(exact.more).toBe(false);
  });

  it('reads a snapshot at an old revision', async () => {
    const p = freshPrefix();
    const a1 = await store.create(`${p}a`, 'a1');
    const b1 = await store.create(`${p}b`, 'b1');
    const snapshot = b1.modRevision;
    await store.update(`${p}a`, 'a2', a1.modRevision);
    await store.delete(`${p}b`);
    await store.create(`${p}c`, 'c1');

    const old = await store.range(p, { revision: snapshot });
    expect(old).toEqual({ kvs: [a1, b1], more: false, revision: snapshot });
    expect(await store.get(`${p}b`, { revision: snapshot })).toEqual(b1);
    expect(await store.get(`${p}c`, { revision: snapshot })).toBeUndefined();
    expect(await store.get(`${p}a`, { revision: a1.modRevision - 1 })).toBeUndefined();
    expect((await store.range(p)).kvs.map((k) => k.value)).toEqual(['a2', 'c1']);
  });

  it('lets only one of two writers from the same revision win', async () => {
    const p = freshPrefix();
    const base = await store.create(`${p}a`, '0');
    const results = await Promise.allSettled([
      store.update(`${p}a`, 'left', base.modRevision),
      store.update(`${p}a`, 'right', base.modRevision),
      store.delete(`${p}a`, base.modRevision),
    ]);
    const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    // Once the delete has won, the key is gone: the updates then find nothing to update.
    const loserCode = winners[0] === 2 ? 'NotFound' : 'Conflict';
    for (const r of results) {
      if (r.status === 'rejected') expect(isStorageError(r.reason, loserCode)).toBe(true);
    }
    expect((await store.get(`${p}a`))?.value).toBe(['left', 'right', undefined][winners[0]]);
  });

  it('loses no update among 64 concurrent read-modify-write writers', async () => {
    const p = freshPrefix();
    const writers = 64;
    const perWriter = 4;
    const key = `${p}counter`;
    await store.create(key, '0');
    let successes = 0;
    const increment = async (): Promise<void> => {
      for (;;) {
        const cur = await store.get(key);
        if (!cur) throw new Error('counter vanished');
        try {
          await store.update(key, String(Number(cur.value) + 1), cur.modRevision);
          successes++;
          return;
        } catch (err) {
          if (!isStorageError(err, 'Conflict')) throw err;
        }
      }
    };
    await Promise.all(
      Array.from({ length: writers }, async () => {
        for (let i = 0; i < perWriter; i++) await increment();
      }),
    );
    expect(successes).toBe(writers * perWriter);
    expect(Number((await store.get(key))?.value)).toBe(writers * perWriter);
  });

  it('replays a watch from an old revision in order, then continues live', async () => {
    const p = freshPrefix();
    const w = `${p}w/`;
    const a1 = await store.create(`${w}a`, '1');
    const a2 = await store.update(`${w}a`, '2', a1.modRevision);
    await store.create(`${p}outside`, 'x');
    const b1 = await store.create(`${w}b`, '1');
    const bDel = await store.delete(`${w}b`);

    const rec = recordWatch(store, w, a1.modRevision);
    const replayed: WatchEvent[] = [
      { type: 'update', kv: a2, prevKv: a1 },
      { type: 'create', kv: b1 },
      { type: 'delete', kv: bDel, prevKv: b1 },
    ];
    await rec.until(() => rec.events.length >= 3, 'the replayed events');
    expect(rec.events).toEqual(replayed);

    const a3 = await store.update(`${w}a`, '3', a2.modRevision);
    await rec.until(() => rec.events.length >= 4, 'the live event');
    expect(rec.events).toEqual([...replayed, { type: 'update', kv: a3, prevKv: a2 }]);
    expect(rec.errors).toEqual([]);
    rec.close();
  });

  it('delivers events asynchronously and stops at close()', async () => {
    const p = freshPrefix();
    const rec = recordWatch(store, p, await store.currentRevision());
    const write = store.create(`${p}a`, '1');
    expect(rec.events).toEqual([]);
    const a = await write;
    await rec.until(() => rec.events.length === 1, 'the create');
    rec.close();

    const later = recordWatch(store, p, a.modRevision);
    await store.create(`${p}b`, '1');
    await later.until(() => later.events.length === 1, 'the second create');
    expect(rec.events).toHaveLength(1);
    later.close();
  });

  it('counts the live keys under a prefix, as bytes, deleted keys not', async () => {
    const p = freshPrefix();
    expect(await store.count(p)).toBe(0);
    for (const n of ['a/1', 'a/2', 'a_/1', 'ab/1', 'a/3']) await store.create(`${p}${n}`, n);
    const updated = await store.update(`${p}a/2`, 'again', (await store.get(`${p}a/2`))!.modRevision);
    await store.delete(`${p}a/3`);
    expect(await store.count(`${p}a/`)).toBe(2);
    expect(await store.count(`${p}a_/`)).toBe(1);
    expect(await store.count(p)).toBe(4);
    expect((await store.range(p)).kvs).toHaveLength(4);
    expect(updated.value).toBe('again');
  });

  it('matches range and watch prefixes as plain bytes', async () => {
    const p = freshPrefix();
    const start = await store.currentRevision();
    // '_' and '%' are LIKE wildcards: a LIKE-based prefix match would let these leak.
    const names = ['a', 'a/1', 'ab/1', 'a_/1', 'a%/1', 'aX/1', 'a/'];
    for (const n of names) await store.create(`${p}${n}`, n);
    const keysUnder = async (prefix: string): Promise<string[]> =>
      (await store.range(prefix)).kvs.map((k) => k.key.slice(p.length));
    expect(await keysUnder(`${p}a/`)).toEqual(['a/', 'a/1']);
    expect(await keysUnder(`${p}a_/`)).toEqual(['a_/1']);
    expect(await keysUnder(`${p}a%/`)).toEqual(['a%/1']);
    expect(await keysUnder(`${p}ab/`)).toEqual(['ab/1']);

    const rec = recordWatch(store, `${p}a/`, start);
    await rec.until(() => rec.events.length >= 2, 'the replay');
    await store.create(`${p}ab/2`, 'x');
    await store.create(`${p}a_/2`, 'x');
    await store.create(`${p}a/2`, 'x');
    await rec.until(() => rec.events.length >= 3, 'the live event');
    expect(rec.events.map((e) => e.kv.key.slice(p.length))).toEqual(['a/1', 'a/', 'a/2']);
    rec.close();
  });

  it('compacts: reads and watches below the compact revision fail, later data stays', async () => {
    const p = freshPrefix();
    const k1 = await store.create(`${p}k`, '1');
    await store.create(`${p}gone`, 'x');
    const k2 = await store.update(`${p}k`, '2', k1.modRevision);
    await store.delete(`${p}gone`);
    const k3 = await store.update(`${p}k`, '3', k2.modRevision);
    const k4 = await store.update(`${p}k`, '4', k3.modRevision);
    const at = k3.modRevision;

    await store.compact(at);
    expect(await store.compactedRevision()).toBe(at);

    const err = await storageError(store.get(`${p}k`, { revision: k2.modRevision }), 'Compacted');
    expect(err.compactRevision).toBe(at);
    await storageError(store.range(p, { revision: k1.modRevision }), 'Compacted');

    expect(await store.range(p, { revision: at })).toEqual({ kvs: [k3], more: false, revision: at });
    expect(await store.get(`${p}k`)).toEqual(k4);

    const tooOld = recordWatch(store, p, k1.modRevision);
    await tooOld.until(() => tooOld.errors.length > 0, 'the compacted error');
    expect(tooOld.events).toEqual([]);
    expect(isStorageError(tooOld.errors[0], 'Compacted')).toBe(true);
    tooOld.close();

    const fromCompact = recordWatch(store, p, at);
    await fromCompact.until(() => fromCompact.events.length >= 1, 'the event after the compact revision');
    expect(fromCompact.events).toEqual([{ type: 'update', kv: k4, prevKv: k3 }]);
    fromCompact.close();
  });

  it('refuses values over MAX_VALUE_BYTES, counted in UTF-8 bytes', async () => {
    const p = freshPrefix();
    const big = 'x'.repeat(1024 * 1024);
    const ok = await store.create(`${p}big`, big);
    expect((await store.get(`${p}big`))?.value).toBe(big);

    await storageError(store.create(`${p}huge`, 'x'.repeat(MAX_VALUE_BYTES + 1)), 'TooLarge');
    expect(await store.get(`${p}huge`)).toBeUndefined();
    // Fewer characters than the limit, more bytes: 'é' is two bytes in UTF-8.
    await storageError(store.update(`${p}big`, 'é'.repeat(MAX_VALUE_BYTES / 2 + 1), ok.modRevision), 'TooLarge');
    expect((await store.get(`${p}big`))?.modRevision).toBe(ok.modRevision);
  });

  it('keeps data, revisions and history across a restart', async () => {
    const p = freshPrefix();
    const a1 = await store.create(`${p}a`, '1');
    const a2 = await store.update(`${p}a`, '2', a1.modRevision);
    const b1 = await store.create(`${p}b`, '1');
    const bDel = await store.delete(`${p}b`);
    const revision = await store.currentRevision();
    const compactRevision = await store.compactedRevision();

    store = await fixture.restart(store);

    expect(await store.currentRevision()).toBe(revision);
    expect(await store.compactedRevision()).toBe(compactRevision);
    expect((await store.range(p)).kvs).toEqual([a2]);
    expect(await store.get(`${p}b`, { revision: b1.modRevision })).toEqual(b1);
    const rec = recordWatch(store, p, a1.modRevision);
    await rec.until(() => rec.events.length >= 3, 'the replay after restart');
    expect(rec.events).toEqual([
      { type: 'update', kv: a2, prevKv: a1 },
      { type: 'create', kv: b1 },
      { type: 'delete', kv: bDel, prevKv: b1 },
    ]);
    rec.close();
    expect((await store.create(`${p}c`, '1')).modRevision).toBeGreaterThan(revision);
  });
});
