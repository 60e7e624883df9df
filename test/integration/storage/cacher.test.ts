// The watch cache over each real backend: consistent lists (also when the newest write was
// elsewhere, which needs storage's progress notification; read from storage instead where those
// are not exact, as on etcd before 3.4.31 and 3.5.13), replay from its window, fallback to a
// storage watch for older revisions, one decode per event however many watch, and the timeout
// for a revision that never comes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cacher, type CachedEvent, TooLargeResourceVersion, consistentReads } from '../../../storage/cacher.js';
import { requestWatchProgressSafe } from '../../../storage/etcd.js';
import { isStorageError } from '../../../storage/errors.js';
import type { KeyValue, Storage } from '../../../storage/interface.js';
import { backendFactories, type BackendFixture } from '../../helpers/backends.js';
import { etcdVersion } from '../../helpers/etcd.js';

const run = randomUUID().slice(0, 8);
let counter = 0;
const freshPrefix = (): string => `/registry/cacher-${run}/${counter++}/`;

interface Recorder {
  events: CachedEvent<string>[];
  errors: Error[];
  until(n: number): Promise<void>;
  close(): void;
}

function record(cacher: Cacher<string>, prefix: string, after: number): Recorder {
  const events: CachedEvent<string>[] = [];
  const errors: Error[] = [];
  const handle = cacher.watch(prefix, after, {
    onEvents: (evs) => events.push(...evs),
    onError: (err) => errors.push(err),
  });
  return {
    events,
    errors,
    async until(n) {
      const deadline = Date.now() + 5000;
      while (events.length < n && errors.length === 0) {
        if (Date.now() > deadline) throw new Error(`only ${events.length} of ${n} events`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => handle.close(),
  };
}

describe.each(backendFactories.map((f) => [f.name, f] as const))('watch cache over %s', (_name, factory) => {
  let fixture: BackendFixture;
  let store: Storage;
  let decodes = 0;
  const decode = (kv: KeyValue): string => {
    decodes++;
    return kv.value;
  };

  beforeAll(async () => {
    fixture = await factory.create();
    store = await fixture.open();
  });
  afterAll(async () => {
    await fixture?.teardown();
  });

  it('lists what storage has, even right after a write, and at storage’s revision', async () => {
    const prefix = freshPrefix();
    const cacher = new Cacher(store, prefix, decode);
    try {
      await store.create(`${prefix}a`, 'A');
      expect((await cacher.list(prefix)).items.map((i) => i.object)).toEqual(['A']);
      await store.create(`${prefix}b`, 'B');
      await store.update(`${prefix}a`, 'A2', (await store.get(`${prefix}a`))!.modRevision);
      const listed = await cacher.list(prefix);
      expect(listed.items.map((i) => [i.key, i.object])).toEqual([
        [`${prefix}a`, 'A2'],
        [`${prefix}b`, 'B'],
      ]);
      // The newest write is elsewhere: only a progress notification can vouch for the revision.
      const other = await store.create(`${freshPrefix()}x`, 'X');
      expect((await cacher.list(prefix)).revision).toBeGreaterThanOrEqual(other.modRevision);
    } finally {
      cacher.stop();
    }
  });

  it('serves consistent lists itself only where storage’s progress is exact, else reads storage', async () => {
    const { supported } = await store.watchProgressSupport();
    // Debian's etcd 3.4.23 (scripts/ensure-etcd.sh) may vouch for a revision a watch has not reached.
    expect(supported).toBe(store.backend === 'sqlite' || requestWatchProgressSafe(etcdVersion()));
    const prefix = freshPrefix();
    const resource = prefix.slice('/registry'.length, -1);
    const served = (): Array<[boolean, boolean, number]> =>
      [...consistentReads.values()].filter((r) => r.resource === resource).map((r) => [r.success, r.fallback, r.count]);
    const cacher = new Cacher(store, prefix, decode);
    try {
      await cacher.list(prefix, { anyRevision: true });
      for (let i = 0; i < 20; i++) {
        await store.create(`${prefix}${i}`, String(i));
        expect((await cacher.list(prefix)).items).toHaveLength(i + 1);
      }
      expect(served()).toEqual(supported ? [[true, false, 20]] : []);
    } finally {
      cacher.stop();
    }
  });

  it('lists one namespace’s objects from its index, and keeps the index through changes', async () => {
    const prefix = freshPrefix();
    const cacher = new Cacher(store, prefix, decode);
    try {
      await store.create(`${prefix}a/x`, 'ax');
      await store.create(`${prefix}b/y`, 'by');
      await store.create(`${prefix}a/z`, 'az');
      expect((await cacher.list(`${prefix}a/`)).items.map((i) => i.object)).toEqual(['ax', 'az']);
      await store.delete(`${prefix}a/x`);
      await store.create(`${prefix}a/w`, 'aw');
      expect((await cacher.list(`${prefix}a/`)).items.map((i) => i.object)).toEqual(['aw', 'az']);
      expect((await cacher.list(`${prefix}b/`)).items.map((i) => i.object)).toEqual(['by']);
      expect((await cacher.list(`${prefix}c/`)).items).toEqual([]);
      expect((await cacher.list(prefix)).items.map((i) => i.object)).toEqual(['aw', 'az', 'by']);
    } finally {
      cacher.stop();
    }
  });

  it('replays the window after a revision, then delivers live events, decoding each once', async () => {
    const prefix = freshPrefix();
    const cacher = new Cacher(store, prefix, decode);
    try {
      await cacher.waitFresh(0); // the cache runs
      const first = await store.create(`${prefix}a`, '1');
      const second = await store.update(`${prefix}a`, '2', first.modRevision);
      // The cache has taken in the update (seen by its objects: see the window's test below).
      await vi.waitFor(() => expect(cacher.heldAt(`${prefix}a`, second.modRevision)).toBeDefined());
      decodes = 0;
      const watchers = Array.from({ length: 5 }, () => record(cacher, prefix, first.modRevision));
      const deleted = await store.delete(`${prefix}a`);
      for (const w of watchers) await w.until(2);
      for (const w of watchers) {
        expect(w.events.map((e) => [e.type, e.object])).toEqual([
          ['update', '2'],
          ['delete', '2'],
        ]);
        w.close();
      }
      expect(watchers[0]!.events[1]!.revision).toBe(deleted.modRevision);
      // The delete decoded once for five watchers; its previous value is the object the cache held.
      expect(decodes).toBe(1);
    } finally {
      cacher.stop();
    }
  });

  it('serves a watch from before its window from storage', async () => {
    const prefix = freshPrefix();
    const early = await store.create(`${prefix}early`, 'E');
    const cacher = new Cacher(store, prefix, decode, { windowSize: 2 });
    try {
      await cacher.list(prefix);
      for (let i = 0; i < 4; i++) await store.create(`${prefix}k${i}`, String(i));
      const w = record(cacher, prefix, early.modRevision - 1);
      await w.until(5);
      expect(w.events.map((e) => e.object)).toEqual(['E', '0', '1', '2', '3']);
      w.close();
    } finally {
      cacher.stop();
    }
  });

  it('keeps a window of at most windowBytes of values: a watch from before it is served by storage', async () => {
    const prefix = freshPrefix();
    const cacher = new Cacher(store, prefix, decode, { windowBytes: 25 });
    try {
      await cacher.waitFresh(0); // the cache runs
      const revs: number[] = [];
      for (let i = 0; i < 4; i++) revs.push((await store.create(`${prefix}k${i}`, String(i).repeat(10))).modRevision);
      // The cache has taken in every create: seen by its objects, not by waitFresh, which etcd
      // before 3.4.31 can satisfy with a progress notification sent ahead of the events.
      await vi.waitFor(() => expect(cacher.heldAt(`${prefix}k3`, revs[3]!)).toBeDefined());
      decodes = 0;
      // The last two creates (20 bytes) are in the window: replayed without decoding anything again.
      const recent = record(cacher, prefix, revs[1]!);
      await recent.until(2);
      expect(recent.events.map((e) => e.object)).toEqual(['2222222222', '3333333333']);
      expect(decodes).toBe(0);
      recent.close();
      // One more is not: storage serves the watch, decoding what it sends.
      const older = record(cacher, prefix, revs[0]!);
      await older.until(3);
      expect(older.events.map((e) => e.object)).toEqual(['1111111111', '2222222222', '3333333333']);
      expect(decodes).toBeGreaterThan(0);
      older.close();
    } finally {
      cacher.stop();
    }
  });

  it('fails with Compacted when neither the window nor storage has the revision', async () => {
    const prefix = freshPrefix();
    const a = await store.create(`${prefix}a`, 'A');
    await store.update(`${prefix}a`, 'A2', a.modRevision);
    const cacher = new Cacher(store, prefix, decode);
    try {
      await cacher.list(prefix);
      await store.compact(await store.currentRevision());
      const w = record(cacher, prefix, a.modRevision - 1);
      await w.until(1);
      expect(w.errors).toHaveLength(1);
      expect(isStorageError(w.errors[0], 'Compacted')).toBe(true);
    } finally {
      cacher.stop();
    }
  });

  it('gives up on a revision storage has not reached, with TooLargeResourceVersion', async () => {
    const prefix = freshPrefix();
    const cacher = new Cacher(store, prefix, decode, { freshnessTimeoutMs: 300 });
    try {
      await cacher.list(prefix);
      const future = (await store.currentRevision()) + 1000;
      const w = record(cacher, prefix, future);
      await w.until(1);
      expect(w.errors[0]).toBeInstanceOf(TooLargeResourceVersion);
      expect(w.errors[0]!.message).toMatch(new RegExp(`^Too large resource version: ${future}, current: \\d+$`));
    } finally {
      cacher.stop();
    }
  });
});
