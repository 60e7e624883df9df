// The generic store at its boundary, on a real SQLite store: what a create does to the metadata a
// client sends (kube's rest.BeforeCreate and FillObjectMetaSystemFields).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, ObjectMeta } from '../../../../apimachinery/object.js';
import { plainEventStrategy as eventStrategy } from '../../../helpers/plain-events.js';
import { Store } from '../../../../server/registry/store.js';
import { createSqliteFixture } from '../../../helpers/sqlite-fixture.js';
import type { Storage } from '../../../../storage/interface.js';

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let storage: Storage;
let store: Store;
beforeAll(async () => {
  fixture = await createSqliteFixture();
  storage = await fixture.open();
  store = new Store(storage, eventStrategy);
});
afterAll(async () => fixture.teardown());

const event = (metadata: ObjectMeta): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Event', metadata, involvedObject: {} }) as KubeObject;

describe('Store.create: system metadata', () => {
  it.each<[string, ObjectMeta, (m: ObjectMeta) => void]>([
    ['a client uid is replaced', { name: 'a', uid: 'mine' }, (m) => expect(m.uid).not.toBe('mine')],
    [
      'a client creationTimestamp is replaced',
      { name: 'b', creationTimestamp: '2001-01-01T00:00:00Z' },
      (m) => expect(m.creationTimestamp).not.toBe('2001-01-01T00:00:00Z'),
    ],
    [
      'deletionTimestamp and deletionGracePeriodSeconds are dropped',
      { name: 'c', deletionTimestamp: '2001-01-01T00:00:00Z', deletionGracePeriodSeconds: 5 },
      (m) => {
        expect(m.deletionTimestamp).toBeUndefined();
        expect(m.deletionGracePeriodSeconds).toBeUndefined();
      },
    ],
    [
      'selfLink is cleared, as kube clears it',
      { name: 'd', selfLink: '/api/v1/namespaces/x/events/d' },
      (m) => expect(m['selfLink']).toBeUndefined(),
    ],
    ['a generated name', { generateName: 'e-' }, (m) => expect(m.name).toMatch(/^e-[a-z0-9]{5}$/)],
    ['the request namespace', { name: 'f', namespace: 'ns' }, (m) => expect(m.namespace).toBe('ns')],
  ])('%s', async (_name, metadata, check) => {
    const created = await store.create('ns', event(metadata), { dryRun: false });
    check(created.metadata);
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it('refuses a resourceVersion with kube 400', async () => {
    await expect(
      store.create('ns', event({ name: 'g', resourceVersion: '5' }), { dryRun: false }),
    ).rejects.toMatchObject({
      code: 400,
      status: { message: 'resourceVersion should not be set on objects to be created' },
    });
  });
});

describe('Store.get: the watch cache’s object', () => {
  it('is answered once the cache holds the revision storage has, a fresh decode before', async () => {
    const shared = new Store(storage, eventStrategy);
    const created = await shared.create('ns', event({ name: 'shared' }), { dryRun: false });
    const before = await shared.get('ns', 'shared');
    expect(await shared.get('ns', 'shared')).not.toBe(before);
    // A list starts the watch cache; a get then answers with the object it lists.
    const listed = (await shared.list('ns', { anyRevision: true })).items.find((o) => o.metadata.name === 'shared')!;
    expect(await shared.get('ns', 'shared')).toBe(listed);
    expect(listed).toEqual(before);
    // A page from storage answers with it too.
    expect((await shared.list('ns', { limit: 50 })).items).toContain(listed);
    // Changed in storage: the cache's object is the old revision's until its event arrives.
    const updated = await shared.update('ns', 'shared', (o) => ({ ...o, reason: 'changed' }), { dryRun: false });
    const got = await shared.get('ns', 'shared');
    expect(got.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
    expect(got).not.toBe(listed);
    expect(created.metadata.resourceVersion).not.toBe(updated.metadata.resourceVersion);
    shared.close();
  });
});

describe('the watch cache: versions of one object share what a write left alone', () => {
  /** The next update's event, with the object before it as the cache held it. */
  async function nextUpdate(name: string, change: (e: KubeObject) => KubeObject) {
    const current = await store.get('ns', name);
    const events: { object: KubeObject; previous?: KubeObject }[] = [];
    const watch = store.watch('ns', Number(current.metadata.resourceVersion), {
      onEvents: (evs) => events.push(...evs),
      onError: (err) => {
        throw err;
      },
    });
    await store.update('ns', name, (e) => change(e), { dryRun: false });
    for (let i = 0; i < 200 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    watch.close();
    return events[0]!;
  }

  it('an update that leaves a member as it was shares it with the version before', async () => {
    await store.create('ns', { ...event({ name: 'lent' }), source: { component: 'a' } }, { dryRun: false });
    const ev = await nextUpdate('lent', (e) => ({ ...e, message: 'changed' }));
    expect(ev.object['message']).toBe('changed');
    expect(ev.object['involvedObject']).toBe(ev.previous!['involvedObject']);
    expect(ev.object['source']).toBe(ev.previous!['source']);
  });

  it('a member written in another order is not shared: what is served is what is stored', async () => {
    await store.create(
      'ns',
      { ...event({ name: 'reordered' }), source: { component: 'a', host: 'h' } },
      {
        dryRun: false,
      },
    );
    const ev = await nextUpdate('reordered', (e) => ({
      ...e,
      message: 'changed',
      source: { host: 'h', component: 'a' },
    }));
    expect(ev.object['source']).not.toBe(ev.previous!['source']);
    expect(Object.keys(ev.object['source'] as object)).toEqual(['host', 'component']);
  });
});

describe('Store.update: the watch cache’s object as the current one', () => {
  it('leaves it as it was: the update function and the write work on copies', async () => {
    const cached = new Store(storage, eventStrategy);
    await cached.create('ns', { ...event({ name: 'kept' }), source: { component: 'a' } }, { dryRun: false });
    const held = (await cached.list('ns', { anyRevision: true })).items.find((o) => o.metadata.name === 'kept')!;
    const before = structuredClone(held);
    let seen: KubeObject | undefined;
    await cached.update(
      'ns',
      'kept',
      (o) => {
        seen = o;
        (o['source'] as Record<string, string>)['component'] = 'b';
        o.metadata.labels = { changed: 'yes' };
        return o;
      },
      { dryRun: false },
    );
    // The update function gets a copy of it, whatever it does to that copy.
    expect(seen).not.toBe(held);
    expect(held).toEqual(before);
    cached.close();
  });
});

describe('Store.create: an object handed over', () => {
  it('is the one the watch cache holds, as decoding its stored bytes would give it', async () => {
    const cached = new Store(storage, eventStrategy);
    await cached.list('ns', { anyRevision: true });
    const sent = { ...event({ name: 'handed' }), source: { component: 'a' } };
    const created = await cached.create('ns', sent, { dryRun: false, handedOver: true });
    // No copy of the request's own object.
    expect(created).toBe(sent);
    const held = await cached.get('ns', 'handed', { minRevision: Number(created.metadata.resourceVersion) });
    expect(held).toBe(created);
    expect(held).toEqual(cached.decode((await storage.get(cached.key('ns', 'handed')))!));
    cached.close();
  });

  it('is held when large too, unless its strings are slices of the body (they would keep all of it)', async () => {
    const cached = new Store(storage, eventStrategy);
    await cached.list('ns', { anyRevision: true });
    const big = { ...event({ name: 'big' }), source: { component: 'x'.repeat(70_000) } };
    const created = await cached.create('ns', big, { dryRun: false, handedOver: true, large: true });
    const held = await cached.get('ns', 'big', { minRevision: Number(created.metadata.resourceVersion) });
    expect(held).toBe(created);
    const sliced = { ...event({ name: 'sliced' }), source: { component: 'a' } };
    const made = await cached.create('ns', sliced, { dryRun: false, handedOver: true, slicesBody: true });
    expect(made).toBe(sliced);
    const decoded = await cached.get('ns', 'sliced', { minRevision: Number(made.metadata.resourceVersion) });
    expect(decoded).not.toBe(made);
    expect(decoded).toEqual(made);
    cached.close();
  });

  it('with an empty resourceVersion is not held: decoding puts the revision last, as a restart would', async () => {
    const cached = new Store(storage, eventStrategy);
    await cached.list('ns', { anyRevision: true });
    const sent = { ...event({ resourceVersion: '', name: 'empty-rv' }), source: { component: 'a' } };
    const created = await cached.create('ns', sent, { dryRun: false, handedOver: true });
    const held = await cached.get('ns', 'empty-rv', { minRevision: Number(created.metadata.resourceVersion) });
    expect(held).not.toBe(created);
    expect(Object.keys(held.metadata).at(-1)).toBe('resourceVersion');
    cached.close();
  });
});
