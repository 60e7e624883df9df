import { describe, expect, it } from 'vitest';
import { deepEqual, sameJson } from '../../../apimachinery/equality.js';

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

describe('sameJson', () => {
  it('is deepEqual with every object’s members in the same order', () => {
    expect(sameJson({ a: 1, b: [{ c: 'x', d: null }] }, { a: 1, b: [{ c: 'x', d: null }] })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson({ o: { a: 1, b: 2 } }, { o: { b: 2, a: 1 } })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
  });

  it('counts a member whose value is undefined as absent, as the text would', () => {
    expect(sameJson({ a: 1, u: undefined, b: 2 }, { a: 1, b: 2 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(true);
  });
});
