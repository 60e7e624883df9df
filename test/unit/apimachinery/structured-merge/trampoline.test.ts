// runTaskSliced runs the walks runTask runs, to the same result, stopping between slices so that
// a request's large object leaves the event loop to others now and then.
import { describe, expect, it } from 'vitest';
import {
  StructuredMergeError,
  Updater,
  deducedType,
  makePath,
  runTask,
  runTaskSliced,
  scalarType,
  structType,
} from '../../../../apimachinery/structured-merge/index.js';

/** `{spec: {m: {k0: 'v', ...}}}`: one map of `n` leaves, walked in one step but for its pauses. */
function wide(n: number): unknown {
  const m: Record<string, string> = {};
  for (let i = 0; i < n; i++) m[`k${i}`] = 'v';
  return { spec: { m } };
}

/** A sliced run whose every slice ends at once (sliceMs 0), counting the turns it gave. */
async function sliced<T>(task: Parameters<typeof runTaskSliced<T>>[0]): Promise<{ value: T; turns: number }> {
  let turns = 0;
  const value = await runTaskSliced(task, async () => void turns++, 0);
  return { value, turns };
}

describe('runTaskSliced', () => {
  const u = new Updater(deducedType);

  it.each([
    { name: 'an update of a map of 10 leaves', n: 10, minTurns: 1 },
    { name: 'an update of a map of 100,000 leaves', n: 100_000, minTurns: 10 },
  ])('$name: the result runTask gives, in at least $minTurns slices', async ({ n, minTurns }) => {
    const live = wide(1);
    const next = wide(n);
    const whole = runTask(u.updateTask(live, next, 'v1', new Map(), 'm'));
    const { value, turns } = await sliced(u.updateTask(live, next, 'v1', new Map(), 'm'));
    expect(value.managers.get('m')!.set.equals(whole.managers.get('m')!.set)).toBe(true);
    expect(value.managers.get('m')!.set.has(makePath('spec', 'm', `k${n - 1}`))).toBe(true);
    expect(turns).toBeGreaterThanOrEqual(minTurns);
  });

  it('rejects with what the walk throws', async () => {
    const typed = new Updater(structType({ a: scalarType('string') }));
    const bad = { a: 1 };
    expect(() => runTask(typed.updateTask({}, bad, 'v1', new Map(), 'm'))).toThrow(StructuredMergeError);
    await expect(sliced(typed.updateTask({}, bad, 'v1', new Map(), 'm'))).rejects.toThrow(
      'failed to convert new object to smd typed: .a: expected string, got 1',
    );
  });
});
