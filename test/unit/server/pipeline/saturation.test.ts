import { describe, expect, it } from 'vitest';
import { LoopSaturation } from '../../../../server/pipeline/saturation.js';

describe('LoopSaturation', () => {
  const busy = (ms: number): void => {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      // A loop that never yields: what a saturated server looks like from inside.
    }
  };
  const idle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

  it('reports saturation after a stretch the loop spent working, and not after an idle one', async () => {
    const s = new LoopSaturation(0.9);
    try {
      await idle(600);
      expect(s.saturated()).toBe(false);
      busy(1200);
      await idle(10); // the sampler runs once the loop is free, over the busy stretch
      expect(s.saturated()).toBe(true);
      await idle(800);
      expect(s.saturated()).toBe(false);
    } finally {
      s.stop();
    }
  });

  it('never reports saturation with a threshold of 1', async () => {
    const s = new LoopSaturation(1);
    try {
      busy(600);
      await idle(10);
      expect(s.saturated()).toBe(false);
    } finally {
      s.stop();
    }
  });
});
