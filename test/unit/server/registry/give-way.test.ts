// A request gives way once it has held the event loop for a slice; requests that give way resume
// one per turn of the loop, in the order they gave way, so that the loop polls for I/O (other
// clients, /readyz) between any two of their slices.
import { describe, expect, it } from 'vitest';
import { SLICE_MS, giveWay, giveWayFor } from '../../../../server/registry/give-way.js';

/** Counts the loop's turns: an immediate queued from the check phase runs in the next turn. */
function turnCounter(): { now: () => number; stop: () => void } {
  let turns = 0;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turns, stop: () => void (stopped = true) };
}

/** Holds the loop for a whole slice, as a large write's phase does. */
function busyForASlice(): void {
  const until = performance.now() + SLICE_MS + 1;
  while (performance.now() < until);
}

describe('giveWay', () => {
  it.each([
    { writers: 1, rounds: 3 },
    { writers: 3, rounds: 4 },
  ])(
    '$writers writers holding the loop a slice between $rounds calls: in turn, one per turn of the loop',
    async ({ writers, rounds }) => {
      const counter = turnCounter();
      const log: Array<{ writer: number; turn: number }> = [];
      const writer = async (w: number): Promise<void> => {
        for (let r = 0; r < rounds; r++) {
          busyForASlice();
          await giveWay();
          log.push({ writer: w, turn: counter.now() });
        }
      };
      await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
      counter.stop();
      expect(log.map((e) => e.writer)).toEqual(Array.from({ length: writers * rounds }, (_, i) => i % writers));
      const turns = log.map((e) => e.turn);
      expect(new Set(turns).size).toBe(turns.length);
    },
  );

  it('costs a write that has not held the loop for a slice no turn', async () => {
    busyForASlice();
    await giveWay();
    const counter = turnCounter();
    const before = counter.now();
    for (let i = 0; i < 10; i++) await giveWay();
    const after = counter.now();
    counter.stop();
    expect(after).toBe(before);
  });

  it('costs a small write no turn, even once the slice is spent; a large one gives way', async () => {
    busyForASlice();
    const counter = turnCounter();
    const before = counter.now();
    await giveWayFor(false);
    const afterSmall = counter.now();
    await giveWayFor(true);
    const afterLarge = counter.now();
    counter.stop();
    expect(afterSmall).toBe(before);
    expect(afterLarge).toBeGreaterThan(afterSmall);
  });
});
