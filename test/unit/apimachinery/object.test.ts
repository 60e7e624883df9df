// apimachinery/object.ts: cloneJson's copies, which the write path makes of whole objects.
import { describe, expect, it } from 'vitest';
import { cloneJson } from '../../../apimachinery/object.js';

describe('cloneJson', () => {
  it('copies every container, keeps scalars and bigints, and shares nothing with the original', () => {
    const v = { a: [1, 'x', null, true, { b: 9007199254740993n }], c: {}, d: [[], [{}]], e: -0 };
    const copy = cloneJson(v);
    expect(copy).toEqual(v);
    expect(Object.keys(copy)).toEqual(['a', 'c', 'd', 'e']);
    expect(copy.a).not.toBe(v.a);
    expect(copy.a[4]).not.toBe(v.a[4]);
    expect(copy.d[1]).not.toBe(v.d[1]);
    expect(Object.is(copy.e, -0)).toBe(true);
  });

  it('keeps a __proto__ key an own data member, as JSON.parse makes it', () => {
    const v = JSON.parse('{"__proto__":{"x":1},"y":[{"__proto__":2}]}') as Record<string, unknown>;
    const copy = cloneJson(v);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'y']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(v));
    expect(Object.hasOwn((copy.y as object[])[0]!, '__proto__')).toBe(true);
  });

  it('leaves out the members `keep` refuses, at any depth, lists untouched', () => {
    const v = { a: null, b: { c: null, d: 1 }, e: [null, { f: null }] };
    expect(cloneJson(v, (_k, x) => x !== null)).toEqual({ b: { d: 1 }, e: [null, {}] });
  });

  it('gives scalars back as they are', () => {
    expect(cloneJson(null)).toBe(null);
    expect(cloneJson('s')).toBe('s');
    expect(cloneJson(5n)).toBe(5n);
  });
});
