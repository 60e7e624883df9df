import { describe, expect, it } from 'vitest';
import { deepEqual } from '../../../apimachinery/equality.js';

describe('deepEqual', () => {
  it.each<{ a: unknown; b: unknown; want: boolean }>([
    { a: 1, b: 1, want: true },
    { a: 1, b: '1', want: false },
    { a: null, b: null, want: true },
    { a: null, b: {}, want: false },
    { a: {}, b: null, want: false },
    { a: 0, b: -0, want: true },
    { a: { a: 1, b: [1, { c: 2 }] }, b: { b: [1, { c: 2 }], a: 1 }, want: true },
    { a: { a: 1 }, b: { a: 1, b: 2 }, want: false },
    { a: { a: 1, b: 2 }, b: { a: 1, c: 2 }, want: false },
    { a: { a: undefined }, b: {}, want: true },
    { a: { a: null }, b: {}, want: false },
    { a: [1, 2], b: [2, 1], want: false },
    { a: [1], b: [1, undefined], want: false },
    { a: [], b: {}, want: false },
    { a: {}, b: [], want: false },
    { a: { 0: 'a' }, b: ['a'], want: false },
    { a: { x: [[1]] }, b: { x: [[1]] }, want: true },
    { a: { x: [[1]] }, b: { x: [[2]] }, want: false },
  ])('$a vs $b', ({ a, b, want }) => {
    expect(deepEqual(a, b)).toBe(want);
    expect(deepEqual(b, a)).toBe(want);
  });
});
