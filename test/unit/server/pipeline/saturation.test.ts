import { describe, expect, it } from 'vitest';
import { LoopSaturation } from '../../../../server/pipeline/saturation.js';

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Work that never yields.
  }
};
const idle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** What a saturated server looks like from inside: the loop turns, but is never idle. */
async function saturate(ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    busy(20);
    await turn();
  }
}

describe('LoopSaturation', () => {
  it('reports saturation while the loop keeps working without rest, and not once it idles again', async () => {
    const s = new LoopSaturation(0.9);
    try {
      await idle(300);
      expect(s.saturated()).toBe(false);
      await saturate(800);
      expect(s.saturated()).toBe(true);
      await idle(400);
      expect(s.saturated()).toBe(false);
    } finally {
      s.stop();
    }
  });

  it('is not saturated by one long task alone', async () => {
    const s = new LoopSaturation(0.9);
    try {
      await idle(300);
      busy(600);
      await idle(10);
      expect(s.saturated()).toBe(false);
    } finally {
      s.stop();
    }
  });

  it('never reports saturation with a threshold of 1', async () => {
    const s = new LoopSaturation(1);
    try {
      await saturate(600);
      expect(s.saturated()).toBe(false);
    } finally {
      s.stop();
    }
  });
});
