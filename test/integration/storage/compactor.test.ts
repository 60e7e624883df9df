// Periodic compaction's protocol on each real backend: the first round only looks, later rounds
// compact to the revision seen one round earlier, and of several servers sharing the store one
// compacts per round, however their rounds interleave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACT_REV_KEY, compactRound } from '../../../storage/compactor.js';
import type { Storage } from '../../../storage/interface.js';
import { backendFactories, type BackendFixture } from '../../helpers/backends.js';

type State = Parameters<typeof compactRound>[1];
const fresh = (): State => ({ keyRevision: undefined, previous: undefined });

describe.each(backendFactories.map((f) => [f.name, f] as const))('compaction over %s', (_name, factory) => {
  let fixture: BackendFixture;
  let store: Storage;

  beforeAll(async () => {
    fixture = await factory.create();
    store = await fixture.open();
  });
  afterAll(async () => {
    await fixture?.teardown();
  });

  it('compacts to what the previous round saw, keeping one round of history', async () => {
    const state = fresh();
    await store.create('/registry/compactor/a', '1');
    expect(await compactRound(store, state)).toEqual({ compacted: undefined });
    const seenFirst = state.previous!;
    await store.create('/registry/compactor/b', '2');
    expect(await compactRound(store, state)).toEqual({ compacted: seenFirst });
    expect(await store.compactedRevision()).toBe(seenFirst);
    expect(Number((await store.get(COMPACT_REV_KEY))!.value)).toBe(seenFirst);
  });

  it('lets one of several servers compact per round, in turns or all at once', async () => {
    const servers = [fresh(), fresh(), fresh()];
    for (const s of servers) await compactRound(store, s);
    let compactions = 0;
    for (let round = 0; round < 3; round++) {
      await store.create(`/registry/compactor/turns-${round}`, 'x');
      for (const s of servers) if ((await compactRound(store, s)).compacted !== undefined) compactions++;
    }
    for (let round = 0; round < 3; round++) {
      await store.create(`/registry/compactor/together-${round}`, 'x');
      const results = await Promise.all(servers.map((s) => compactRound(store, s)));
      compactions += results.filter((r) => r.compacted !== undefined).length;
    }
    // At most one per round; and the rounds are not all lost to each other.
    expect(compactions).toBeGreaterThanOrEqual(3);
    expect(compactions).toBeLessThanOrEqual(6);
  });
});
