import { describe, expect, it } from 'vitest';
import { RequestTimeouts } from '../../../../server/pipeline/request-timeouts.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('RequestTimeouts', () => {
  it('times out each request still pending at its own deadline, in arrival order, and none that was done', async () => {
    const expired: string[] = [];
    const t = new RequestTimeouts<string>(40, (key) => expired.push(key));
    t.start('a');
    t.start('b');
    await sleep(20);
    t.start('c');
    t.done('b');
    // c, 20 ms younger than a, waits for the timer armed anew after a's.
    while (expired.length < 2) await sleep(5);
    expect(expired).toEqual(['a', 'c']);
    // Idle, then a request again: the timer is armed afresh.
    t.start('d');
    while (expired.length === 2) await sleep(5);
    expect(expired).toEqual(['a', 'c', 'd']);
  });
});
