import { describe, expect, it } from 'vitest';
import { appendAll } from '../../../apimachinery/append.js';

describe('appendAll', () => {
  it.each([
    { to: [], items: [], want: [] },
    { to: [1], items: [2, 3], want: [1, 2, 3] },
    { to: [], items: new Set([4, 5]), want: [4, 5] },
  ])('$to + $items', ({ to, items, want }) => {
    const target: number[] = [...to];
    expect(appendAll(target, items)).toBe(target);
    expect(target).toEqual(want);
  });

  it('takes more items than a call takes arguments, where push(...items) throws', () => {
    const items = Array.from({ length: 200_000 }, (_, i) => i);
    expect(() => [].push(...(items as never[]))).toThrow(RangeError);
    expect(appendAll([-1], items)).toHaveLength(200_001);
  });
});
