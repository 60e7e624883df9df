// kube's RetryGenerateName (GA in 1.32): a create whose name the server generates is tried again
// with a new name when the generated one is taken, up to maxNameGenerationCreateAttempts (8) in
// all; the last collision answers NewGenerateNameConflict. Collisions are made deterministic by
// replacing the store's name generator and creating its names first.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject, ObjectMeta } from '../../../../apimachinery/object.js';
import { plainEventStrategy as eventStrategy } from '../../../helpers/plain-events.js';
import { MAX_NAME_GENERATION_CREATE_ATTEMPTS, Store } from '../../../../server/registry/store.js';
import { generateNameFrom } from '../../../../server/registry/object-meta-ops.js';
import { createSqliteFixture } from '../../../helpers/sqlite-fixture.js';

let fixture: Awaited<ReturnType<typeof createSqliteFixture>>;
let store: Store;
/** Names the generator hands out, in order, and how many it was asked for. */
let queue: string[];
let asked: number;

beforeAll(async () => {
  fixture = await createSqliteFixture();
  store = new Store(await fixture.open(), eventStrategy);
});
afterAll(async () => fixture.teardown());
beforeEach(() => {
  queue = [];
  asked = 0;
  store.generateName = (base) => {
    asked++;
    const next = queue.shift();
    if (next === undefined) throw new Error(`generator ran dry for ${base}`);
    return next;
  };
});

const event = (metadata: ObjectMeta): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Event', metadata, involvedObject: {} }) as KubeObject;

/** Creates the objects that the generated names will collide with. */
async function taken(...names: string[]): Promise<void> {
  for (const name of names) await store.create('ns', event({ name }), { dryRun: false });
}

describe('Store.create with generateName: collisions', () => {
  it('is 8 attempts, as kube', () => {
    expect(MAX_NAME_GENERATION_CREATE_ATTEMPTS).toBe(8);
  });

  it('retries with a new name until one is free', async () => {
    await taken('a-xxxx1', 'a-xxxx2');
    queue = ['a-xxxx1', 'a-xxxx2', 'a-xxxx3'];
    const created = await store.create('ns', event({ generateName: 'a-' }), { dryRun: false });
    expect(created.metadata.name).toBe('a-xxxx3');
    expect(created.metadata.generateName).toBe('a-');
    expect(asked).toBe(3);
    expect((await store.get('ns', 'a-xxxx3')).metadata.uid).toBe(created.metadata.uid);
  });

  it('the seventh collision still succeeds on the eighth attempt', async () => {
    const names = Array.from({ length: 7 }, (_, i) => `b-x${i}`);
    await taken(...names);
    queue = [...names, 'b-free'];
    const created = await store.create('ns', event({ generateName: 'b-' }), { dryRun: false });
    expect(created.metadata.name).toBe('b-free');
    expect(asked).toBe(8);
  });

  it('gives up after 8 attempts with kube NewGenerateNameConflict (409 AlreadyExists, retry after 1s)', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `c-x${i}`);
    await taken(...names);
    queue = [...names, 'c-never'];
    const err = await store.create('ns', event({ generateName: 'c-' }), { dryRun: false }).catch((e: unknown) => e);
    expect(asked).toBe(8);
    expect(err).toMatchObject({
      code: 409,
      status: {
        reason: 'AlreadyExists',
        message: 'events "c-x7" already exists, the server was not able to generate a unique name for the object',
        details: { name: 'c-x7', kind: 'events', retryAfterSeconds: 1 },
      },
    });
  });

  it('retries a dry run too (the dry-run storage answers KeyExists as well)', async () => {
    await taken('d-x1');
    queue = ['d-x1', 'd-x2'];
    const created = await store.create('ns', event({ generateName: 'd-' }), { dryRun: true });
    expect(created.metadata.name).toBe('d-x2');
    expect(asked).toBe(2);
    await expect(store.get('ns', 'd-x2')).rejects.toMatchObject({ code: 404 });
  });

  it('a name the client chose is not retried: plain AlreadyExists', async () => {
    await taken('e-mine');
    await expect(store.create('ns', event({ name: 'e-mine' }), { dryRun: false })).rejects.toMatchObject({
      code: 409,
      status: {
        reason: 'AlreadyExists',
        message: 'events "e-mine" already exists',
        details: { name: 'e-mine', kind: 'events' },
      },
    });
    expect(asked).toBe(0);
  });

  it('a chosen name with a generateName beside it is not retried, but answers as a generated one (CheckGeneratedNameError)', async () => {
    await taken('f-mine');
    const err = await store
      .create('ns', event({ name: 'f-mine', generateName: 'f-' }), { dryRun: false })
      .catch((e: unknown) => e);
    expect(asked).toBe(0);
    expect(err).toMatchObject({
      code: 409,
      status: {
        reason: 'AlreadyExists',
        message: 'events "f-mine" already exists, the server was not able to generate a unique name for the object',
        details: { retryAfterSeconds: 1 },
      },
    });
  });

  it('errors other than AlreadyExists are not retried', async () => {
    queue = ['Not_A_Valid_Name', 'g-ok'];
    await expect(store.create('ns', event({ generateName: 'g-' }), { dryRun: false })).rejects.toMatchObject({
      code: 422,
    });
    expect(asked).toBe(1);
  });

  it('each attempt is a fresh object: a new uid, not the last attempt’s', async () => {
    await taken('h-x1');
    queue = ['h-x1', 'h-x2'];
    const created = await store.create('ns', event({ generateName: 'h-' }), { dryRun: false });
    expect(created.metadata.name).toBe('h-x2');
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the default generator is names.SimpleNameGenerator', () => {
    store.generateName = generateNameFrom;
    expect(store.generateName('z-')).toMatch(/^z-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });
});
