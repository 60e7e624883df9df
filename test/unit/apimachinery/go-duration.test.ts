import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../../apimachinery/go-duration.js';

describe('parseGoDuration, as Go time.ParseDuration', () => {
  it.each([
    ['5m0s', 300_000_000_000n],
    ['1h', 3_600_000_000_000n],
    ['250ms', 250_000_000n],
    ['1.5s', 1_500_000_000n],
    ['.5s', 500_000_000n],
    ['2h45m', 9_900_000_000_000n],
    ['1\u00b5s', 1_000n],
    ['1\u03bcs', 1_000n],
    ['0', 0n],
    ['-0', 0n],
    ['0s', 0n],
    ['-5m', -300_000_000_000n],
    ['+5m', 300_000_000_000n],
    ['-9223372036854775808ns', -(2n ** 63n)],
    ['999999999999999ns', 999_999_999_999_999n],
    ['2562047h', 2_562_047n * 3_600_000_000_000n],
    ['007s', 7_000_000_000n],
  ])('%j is %s ns', (input, want) => {
    expect(parseGoDuration(input)).toBe(want);
  });

  it.each([
    ['', 'time: invalid duration ""'],
    ['5', 'time: missing unit in duration "5"'],
    ['5x', 'time: unknown unit "x" in duration "5x"'],
    ['1constructor', 'time: unknown unit "constructor" in duration "1constructor"'],
    ['1.5toString', 'time: unknown unit "toString" in duration "1.5toString"'],
    ['10000000000h', 'time: invalid duration "10000000000h"'],
    ['5m junk', 'time: unknown unit "m junk" in duration "5m junk"'],
    ['.s', 'time: invalid duration ".s"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
  ])("%j is Go's error %j", (input, want) => {
    expect(parseGoDuration(input)).toBe(want);
  });
});
