// The collector's work queue: each key once, a key re-added while worked on runs again after,
// batches bounded, failures back after a backoff.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../../../../server/controllers/garbage-collector/queue.js';

describe('WorkQueue', () => {
  it('deduplicates, bounds each batch, and re-queues a key added while it is active', () => {
    let ready = 0;
    const q = new WorkQueue(() => ready++);
    for (const k of ['a', 'b', 'a', 'c', 'b']) q.add(k);
    expect(q.length).toBe(3);
    expect(q.take(2)).toEqual(['a', 'b']);
    q.add('a');
    expect(q.length).toBe(1);
    q.done('a', false);
    expect(q.take(10).sort()).toEqual(['a', 'c']);
    q.done('a', false);
    q.done('b', false);
    q.done('c', false);
    expect(q.empty).toBe(true);
    expect(ready).toBeGreaterThan(0);
    q.close();
  });

  it('brings a failed key back after its backoff, and not after close', async () => {
    const q = new WorkQueue(() => {});
    q.add('x');
    q.take(1);
    q.done('x', true);
    expect(q.length).toBe(0);
    expect(q.empty).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(q.take(1)).toEqual(['x']);
    q.done('x', true);
    q.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(q.length).toBe(0);
  });
});
