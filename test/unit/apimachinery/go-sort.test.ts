import { describe, expect, it } from 'vitest';
import { compareGoStrings } from '../../../apimachinery/go-sort.js';

describe('compareGoStrings', () => {
  it.each<{ a: string; b: string; want: number }>([
    { a: 'a', b: 'b', want: -1 },
    { a: 'b', b: 'a', want: 1 },
    { a: 'a', b: 'a', want: 0 },
    { a: 'B', b: 'a', want: -1 },
    { a: '', b: 'a', want: -1 },
    { a: 'a', b: 'a.b', want: -1 },
    // Byte order, not UTF-16 order: U+FF61 sorts before U+1F600 in UTF-8 but after it in UTF-16.
    { a: '\uff61', b: '\u{1f600}', want: -1 },
    { a: '\u{10000}', b: '\uffff', want: 1 },
    { a: '\ud7ff', b: '\u{10000}', want: -1 },
  ])('$a vs $b', ({ a, b, want }) => {
    expect(compareGoStrings(a, b)).toBe(want);
    // Agrees with comparing the UTF-8 bytes, which is what Go compares.
    expect(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)))).toBe(want);
  });

  it("sorts as Go's sort.Strings", () => {
    const xs = ['b', '\u{10000}', 'a.b', 'a[1]', '\uffff', 'a', 'é'];
    expect(xs.sort(compareGoStrings)).toEqual(['a', 'a.b', 'a[1]', 'b', 'é', '\uffff', '\u{10000}']);
  });
});
