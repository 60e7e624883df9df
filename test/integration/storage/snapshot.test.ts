// Snapshots on every backend, on real stores: a save copies the scope as of a revision; a restore
// writes the difference as new revisions, which a watch from before it sees as create, update and
// delete events; keys outside the scope (or excluded from it) are never touched; snapshots outlive
// a restart of the store. On etcd a restore is one transaction when etcd takes one that large, and
// pieces within its default limits when it does not.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageError } from '../../../storage/errors.js';
import type { Storage } from '../../../storage/interface.js';
import { EtcdStorage } from '../../../storage/etcd.js';
import { type BackendFixture, backendFactories, recordWatch } from '../../helpers/backends.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';

const run = randomUUID().slice(0, 8);
let counter = 0;

/** A fresh scope per test: its own prefix, with one excluded sub-prefix. */
function freshScope(): { prefix: string; excluded: string; scope: { prefix: string; exclude: string[] } } {
  const prefix = `/registry/snap-${run}/${counter++}/`;
  const excluded = `${prefix}kept/`;
  return { prefix, excluded, scope: { prefix, exclude: [excluded] } };
}

describe.each(backendFactories.map((f) => [f.name, f] as const))('snapshots: %s', (name, factory) => {
  let fixture: BackendFixture;
  let store: Storage;

  beforeAll(async () => {
    fixture = await factory.create();
    store = await fixture.open();
  });
  afterAll(async () => {
    await fixture?.teardown();
  });

  it('a restore puts back what was saved, as new revisions a watch sees, and nothing else', async () => {
    const { prefix, excluded, scope } = freshScope();
    const a = await store.create(`${prefix}a`, 'A1');
    const b = await store.create(`${prefix}b`, 'B1');
    await store.create(`${excluded}x`, 'X1');
    const outside = `/registry/snap-${run}/outside-${counter}`;
    await store.create(outside, 'O1');
    const saved = await store.currentRevision();
    // As of the revision when it was asked for (on etcd, writing it adds revisions of its own).
    expect(await store.saveSnapshot('clean', scope)).toEqual({ revision: saved, keys: 2, bytes: 4 });

    // After the save: a changed, b deleted, c created, and the excluded and outside keys changed.
    await store.update(`${prefix}a`, 'A2', a.modRevision);
    await store.delete(`${prefix}b`, b.modRevision);
    await store.create(`${prefix}c`, 'C1');
    const x = await store.get(`${excluded}x`);
    await store.update(`${excluded}x`, 'X2', x!.modRevision);
    const o = await store.get(outside);
    await store.update(outside, 'O2', o!.modRevision);

    const before = await store.currentRevision();
    const watch = recordWatch(store, prefix, before);
    try {
      const restored = await store.restoreSnapshot('clean');
      expect(restored).toEqual({ revision: await store.currentRevision(), created: 1, updated: 1, deleted: 1 });
      expect(restored.revision).toBeGreaterThan(before);
      await watch.until(() => watch.events.length >= 3, 'the three changes');
      expect(watch.events.map((e) => [e.type, e.kv.key, e.kv.value])).toEqual([
        ['update', `${prefix}a`, 'A1'],
        ['create', `${prefix}b`, 'B1'],
        ['delete', `${prefix}c`, 'C1'],
      ]);
      expect(watch.events[0]!.prevKv?.value).toBe('A2');
      const revisions = watch.events.map((e) => e.kv.modRevision);
      for (const r of revisions) expect(r).toBeGreaterThan(before);
      // SQLite gives each change its own revision; etcd one per transaction.
      if (name === 'sqlite') expect(new Set(revisions).size).toBe(3);
      else expect(new Set(revisions).size).toBe(1);
    } finally {
      watch.close();
    }

    const { kvs } = await store.range(prefix);
    expect(kvs.map((kv) => [kv.key, kv.value])).toEqual([
      [`${prefix}a`, 'A1'],
      [`${prefix}b`, 'B1'],
      [`${excluded}x`, 'X2'],
    ]);
    expect((await store.get(outside))?.value).toBe('O2');
    // A recreated key is a new key: its create revision is the restore's.
    expect((await store.get(`${prefix}b`))!.createRevision).toBeGreaterThan(before);
  });

  it('a restore with nothing to change writes nothing', async () => {
    const { prefix, scope } = freshScope();
    await store.create(`${prefix}a`, 'A');
    await store.saveSnapshot('same', scope);
    const before = await store.currentRevision();
    expect(await store.restoreSnapshot('same')).toEqual({ revision: before, created: 0, updated: 0, deleted: 0 });
    expect(await store.currentRevision()).toBe(before);
  });

  it('a restore can be repeated, and a save replaces the snapshot of that name', async () => {
    const { prefix, scope } = freshScope();
    const a = await store.create(`${prefix}a`, '1');
    await store.saveSnapshot('again', scope);
    const a2 = await store.update(`${prefix}a`, '2', a.modRevision);
    await store.restoreSnapshot('again');
    expect((await store.get(`${prefix}a`))!.value).toBe('1');
    const a3 = await store.get(`${prefix}a`);
    await store.update(`${prefix}a`, '3', a3!.modRevision);
    expect((await store.restoreSnapshot('again')).updated).toBe(1);
    expect((await store.get(`${prefix}a`))!.value).toBe('1');
    expect(a2.modRevision).toBeLessThan((await store.get(`${prefix}a`))!.modRevision);

    const now = await store.get(`${prefix}a`);
    await store.update(`${prefix}a`, '4', now!.modRevision);
    await store.saveSnapshot('again', scope);
    await store.create(`${prefix}b`, 'new');
    expect(await store.restoreSnapshot('again')).toMatchObject({ created: 0, updated: 0, deleted: 1 });
    expect((await store.get(`${prefix}a`))!.value).toBe('4');
  });

  it("more changes than etcd's default transaction takes (128 operations) are all restored", async () => {
    const { prefix, scope } = freshScope();
    await store.saveSnapshot('empty', scope);
    for (let i = 0; i < 300; i++) await store.create(`${prefix}k${String(i).padStart(3, '0')}`, `v${i}`);
    await store.saveSnapshot('full', scope);
    const watch = recordWatch(store, prefix, await store.currentRevision());
    try {
      const result = await store.restoreSnapshot('empty');
      expect(result).toMatchObject({ created: 0, updated: 0, deleted: 300 });
      expect((await store.range(prefix)).kvs).toEqual([]);
      await watch.until(() => watch.events.length >= 300, 'the 300 deletes');
      // etcd refused the one transaction and took three within its defaults (128, 128, 44).
      if (name === 'etcd') expect(new Set(watch.events.map((e) => e.kv.modRevision)).size).toBe(3);
      // The next one as large goes in pieces at once (etcd's refusal is remembered).
      expect(await store.restoreSnapshot('full')).toMatchObject({ created: 300, updated: 0, deleted: 0 });
      await watch.until(() => watch.events.length >= 600, 'the 300 creates');
      if (name === 'etcd') expect(new Set(watch.events.slice(300).map((e) => e.kv.modRevision)).size).toBe(3);
    } finally {
      watch.close();
    }
  });

  it("changes larger than etcd's default request (1.5 MiB) are all restored", async () => {
    const { prefix, scope } = freshScope();
    await store.saveSnapshot('none', scope);
    const big = 'x'.repeat(100_000);
    for (let i = 0; i < 20; i++) await store.create(`${prefix}big${String(i).padStart(2, '0')}`, big);
    const watch = recordWatch(store, prefix, await store.currentRevision());
    try {
      await store.saveSnapshot('big', scope);
      await store.restoreSnapshot('none');
      expect(await store.restoreSnapshot('big')).toMatchObject({ created: 20, updated: 0, deleted: 0 });
      expect((await store.range(prefix)).kvs.map((kv) => kv.value.length)).toEqual(Array(20).fill(100_000));
      await watch.until(() => watch.events.length >= 40, 'the 20 deletes and 20 creates');
      // The deletes carry no values: one transaction. The creates' 2 MB in one is refused, and
      // written in pieces of at most 1 MiB: two.
      if (name === 'etcd') expect(new Set(watch.events.map((e) => e.kv.modRevision)).size).toBe(3);
    } finally {
      watch.close();
    }
  });

  it('snapshots are listed, deleted, and a missing one is NotFound', async () => {
    const { prefix, scope } = freshScope();
    await store.create(`${prefix}a`, 'A');
    const named = `listed-${counter}`;
    await store.saveSnapshot(named, scope);
    expect(await store.snapshotNames()).toContain(named);
    await store.deleteSnapshot(named);
    expect(await store.snapshotNames()).not.toContain(named);
    const err = await store.restoreSnapshot(named).catch((e: unknown) => e);
    expect(isStorageError(err, 'NotFound')).toBe(true);
  });

  it('snapshots are not keys: no range of the store shows them', async () => {
    const { prefix, scope } = freshScope();
    await store.create(`${prefix}a`, 'A');
    await store.saveSnapshot('hidden', scope);
    const all = await store.range('/registry/');
    expect(all.kvs.some((kv) => kv.value.includes('"A"') || kv.key.includes('hidden'))).toBe(false);
  });

  it('a snapshot outlives a restart of the store', async () => {
    const { prefix, scope } = freshScope();
    const a = await store.create(`${prefix}a`, 'before');
    await store.saveSnapshot('durable', scope);
    await store.update(`${prefix}a`, 'after', a.modRevision);
    store = await fixture.restart(store);
    expect(await store.snapshotNames()).toContain('durable');
    await store.restoreSnapshot('durable');
    expect((await store.get(`${prefix}a`))!.value).toBe('before');
  });
});

describe('snapshots: etcd that takes a large transaction', () => {
  let etcd: EtcdProcess;
  let store: Storage;

  beforeAll(async () => {
    etcd = await startEtcd(['--max-txn-ops=1000']);
    store = await EtcdStorage.connect([etcd.endpoint], '/large-txn');
  });
  afterAll(async () => {
    await store?.close();
    await etcd?.destroy();
  });

  it('a restore of 300 changes is one transaction: every event at one revision', async () => {
    const { prefix, scope } = freshScope();
    for (let i = 0; i < 150; i++) await store.create(`${prefix}old${String(i).padStart(3, '0')}`, `v${i}`);
    await store.saveSnapshot('old', scope);
    for (let i = 0; i < 150; i++) {
      const key = `${prefix}old${String(i).padStart(3, '0')}`;
      await store.delete(key, (await store.get(key))!.modRevision);
      await store.create(`${prefix}new${String(i).padStart(3, '0')}`, `v${i}`);
    }
    const watch = recordWatch(store, prefix, await store.currentRevision());
    try {
      const result = await store.restoreSnapshot('old');
      expect(result).toEqual({ revision: await store.currentRevision(), created: 150, updated: 0, deleted: 150 });
      await watch.until(() => watch.events.length >= 300, 'the 300 changes');
      expect(new Set(watch.events.map((e) => e.kv.modRevision))).toEqual(new Set([result.revision]));
    } finally {
      watch.close();
    }
  });
});
