// The watch cache's decoding, counted: an update or a delete decodes its new value only. The
// previous value is the object the cache already holds (the same stored bytes at the same
// revision), handed on as it is, so what a watcher sees of it cannot differ from a fresh decode.
// And a first load that failed is not remembered: the informers' relists read through the cache.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CachedEvent, Cacher } from '../../../storage/cacher.js';
import type { KeyValue, Storage, WatchCallbacks, WatchHandle } from '../../../storage/interface.js';
import { type StorageError, isStorageError } from '../../../storage/errors.js';
import { createSqliteFixture } from '../../helpers/sqlite-fixture.js';
import { eventually } from '../../helpers/eventually.js';

interface Decoded {
  value: string;
  revision: number;
}

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let storage: Storage;

beforeAll(async () => {
  fixture = await createSqliteFixture();
  storage = await fixture.open();
});
afterAll(async () => {
  await fixture.teardown();
});

it('decodes an update’s and a delete’s previous value zero times when it holds the object', async () => {
  const prefix = '/registry/things/';
  const decoded: KeyValue[] = [];
  const cacher = new Cacher<Decoded>(
    storage,
    prefix,
    (kv) => (decoded.push(kv), { value: kv.value, revision: kv.modRevision }),
  );
  try {
    const created = await storage.create(`${prefix}a`, 'A1');
    const held = (await cacher.get(`${prefix}a`))!.object;
    const events: CachedEvent<Decoded>[] = [];
    const errors: Error[] = [];
    const watch = cacher.watch(prefix, created.modRevision, {
      onEvents: (evs) => events.push(...evs),
      onError: (err) => errors.push(err),
    });
    decoded.length = 0;
    const updated = await storage.update(`${prefix}a`, 'A2', created.modRevision);
    const again = await storage.update(`${prefix}a`, 'A3', updated.modRevision);
    const deleted = await storage.delete(`${prefix}a`);
    await eventually('three events', async () => (events.length === 3 || errors.length > 0 ? true : undefined));
    watch.close();
    expect(errors).toEqual([]);
    // One decode per event, of its new value; none of a previous value.
    expect(decoded.map((kv) => [kv.value, kv.modRevision])).toEqual([
      ['A2', updated.modRevision],
      ['A3', again.modRevision],
      ['A3', deleted.modRevision],
    ]);
    expect(events.map((ev) => ev.type)).toEqual(['update', 'update', 'delete']);
    expect(events[0]!.previous).toBe(held);
    expect(events[1]!.previous).toBe(events[0]!.object);
    expect(events[2]!.previous).toBe(events[1]!.object);
  } finally {
    cacher.stop();
  }
});

it('loads again on the next read when its first load failed', async () => {
  const prefix = '/registry/again/';
  await storage.create(`${prefix}a`, 'A');
  let failures = 1;
  const flaky = new Proxy(storage, {
    get(target, p) {
      const v: unknown = Reflect.get(target, p, target);
      if (p === 'range' && failures > 0) {
        failures--;
        return () => Promise.reject(new Error('storage away'));
      }
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  });
  const cacher = new Cacher<string>(flaky, prefix, (kv) => kv.value);
  try {
    await expect(cacher.list(prefix)).rejects.toThrow('storage away');
    expect((await cacher.list(prefix)).items.map((i) => i.object)).toEqual(['A']);
  } finally {
    cacher.stop();
  }
});

it('after expireHistory, a watch resuming from before it is Compacted; one from then on is served', async () => {
  const prefix = '/registry/expired/';
  const cacher = new Cacher<string>(storage, prefix, (kv) => kv.value);
  try {
    const first = await storage.create(`${prefix}a`, 'A1');
    await storage.update(`${prefix}a`, 'A2', first.modRevision);
    // Both in the window: a resume from the first event is replayed from it.
    await cacher.waitFresh(await storage.currentRevision());
    const replayed: CachedEvent<string>[] = [];
    const before = cacher.watch(prefix, first.modRevision, { onEvents: (e) => replayed.push(...e), onError: () => {} });
    await eventually('the replay', async () => (replayed.length === 1 ? true : undefined));
    before.close();

    const expiredAt = await storage.currentRevision();
    cacher.expireHistory(expiredAt);
    const errors: Error[] = [];
    const resumed = cacher.watch(prefix, first.modRevision, { onEvents: () => {}, onError: (e) => errors.push(e) });
    await eventually('the refusal', async () => (errors.length === 1 ? true : undefined));
    resumed.close();
    expect(isStorageError(errors[0], 'Compacted')).toBe(true);
    expect((errors[0] as StorageError).compactRevision).toBe(expiredAt);

    // From the expiry on, watches go on as before, and the list is unchanged.
    const events: CachedEvent<string>[] = [];
    const fresh = cacher.watch(prefix, expiredAt, {
      onEvents: (e) => events.push(...e),
      onError: (e) => errors.push(e),
    });
    const a = await storage.get(`${prefix}a`);
    await storage.update(`${prefix}a`, 'A3', a!.modRevision);
    await eventually('the next event', async () => (events.length === 1 ? true : undefined));
    fresh.close();
    expect(events.map((e) => e.object)).toEqual(['A3']);
    expect(errors).toHaveLength(1);
    expect((await cacher.list(prefix)).items.map((i) => i.object)).toEqual(['A3']);
  } finally {
    cacher.stop();
  }
});

it('lists in key order as keys come and go, and holds an object only at the revision that wrote it', async () => {
  const prefix = '/registry/ordered/';
  const cacher = new Cacher<string>(storage, prefix, (kv) => kv.value);
  try {
    await storage.create(`${prefix}ns/b`, 'B');
    const c = await storage.create(`${prefix}ns/c`, 'C');
    const keys = async (under: string): Promise<string[]> =>
      (await cacher.list(under)).items.map((i) => i.key.slice(prefix.length));
    expect(await keys(prefix)).toEqual(['ns/b', 'ns/c']);
    expect(await keys(`${prefix}ns/`)).toEqual(['ns/b', 'ns/c']);
    expect(cacher.heldAt(`${prefix}ns/c`, c.modRevision)).toBe('C');
    await storage.create(`${prefix}ns/a`, 'A');
    const c2 = await storage.update(`${prefix}ns/c`, 'C2', c.modRevision);
    await storage.delete(`${prefix}ns/b`);
    expect(await keys(prefix)).toEqual(['ns/a', 'ns/c']);
    expect(await keys(`${prefix}ns/`)).toEqual(['ns/a', 'ns/c']);
    expect((await cacher.list(prefix)).items.map((i) => i.object)).toEqual(['A', 'C2']);
    expect(cacher.heldAt(`${prefix}ns/c`, c.modRevision)).toBeUndefined();
    expect(cacher.heldAt(`${prefix}ns/c`, c2.modRevision)).toBe('C2');
    expect(cacher.heldAt(`${prefix}ns/b`, c.modRevision - 1)).toBeUndefined();
  } finally {
    cacher.stop();
  }
});

it('sends a watch only the events after its revision, even when progress ran ahead of them', async () => {
  // As etcd before 3.4.31 may (etcd-io/etcd#15220): a progress notification for the current
  // revision while the cache's own watch still holds events back. The cache's revision then
  // passes a watch's start before the events up to it have arrived.
  const prefix = '/registry/ahead/';
  const held: Array<() => void> = [];
  const ahead = new Proxy(storage, {
    get(target, p) {
      if (p === 'watch')
        return (pfx: string, after: number, callbacks: WatchCallbacks): WatchHandle => {
          const handle = target.watch(pfx, after, {
            ...callbacks,
            onEvents: (events) => held.push(() => callbacks.onEvents(events)),
          });
          return {
            close: () => handle.close(),
            requestProgress: () => void target.currentRevision().then((rev) => callbacks.onProgress?.(rev)),
          };
        };
      const v: unknown = Reflect.get(target, p, target);
      return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
    },
  });
  const cacher = new Cacher<Decoded>(ahead, prefix, (kv) => ({ value: kv.value, revision: kv.modRevision }));
  try {
    await cacher.list(prefix, { anyRevision: true });
    const first = await storage.create(`${prefix}a`, 'A');
    const second = await storage.create(`${prefix}b`, 'B');
    await cacher.waitFresh(second.modRevision); // by the progress notification alone
    await eventually('both events held back', async () => (held.length > 0 ? true : undefined));
    const events: CachedEvent<Decoded>[] = [];
    const watch = cacher.watch(prefix, first.modRevision, {
      onEvents: (evs) => events.push(...evs),
      onError: () => {},
    });
    await new Promise((resolve) => setImmediate(resolve));
    for (const release of held.splice(0)) release();
    await eventually('the later event', async () => (events.length > 0 ? true : undefined));
    watch.close();
    expect(events.map((ev) => [ev.key, ev.revision])).toEqual([[`${prefix}b`, second.modRevision]]);
  } finally {
    cacher.stop();
  }
});

it('replays a full window’s newest events, in order, as events move through it', async () => {
  // Past 1,024 dropped events the window reclaims their slots: what it replays must not move.
  const prefix = '/registry/windowed/';
  let decodes = 0;
  const cacher = new Cacher<string>(storage, prefix, (kv) => (decodes++, kv.value), { windowSize: 8 });
  try {
    await cacher.list(prefix, { anyRevision: true });
    const revisions: number[] = [];
    for (let batch = 0; batch < 12; batch++)
      for (const kv of await Promise.all(
        Array.from({ length: 100 }, (_, i) => storage.create(`${prefix}${batch}-${i}`, `${batch}-${i}`)),
      ))
        revisions.push(kv.modRevision);
    revisions.sort((a, b) => a - b);
    await cacher.waitFresh(revisions.at(-1)!);
    decodes = 0;
    const events: CachedEvent<string>[] = [];
    const watch = cacher.watch(prefix, revisions.at(-6)!, { onEvents: (e) => events.push(...e), onError: () => {} });
    await eventually('the replay', async () => (events.length === 5 ? true : undefined));
    watch.close();
    expect(events.map((e) => e.revision)).toEqual(revisions.slice(-5));
    expect(decodes).toBe(0);
  } finally {
    cacher.stop();
  }
});
