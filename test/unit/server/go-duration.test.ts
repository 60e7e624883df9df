import { describe, expect, it } from 'vitest';
import { parseGoDuration } from '../../../server/go-duration.js';

describe('parseGoDuration', () => {
  it.each([
    ['5m0s', 300_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['1.5s', 1500],
    ['2h45m', 9_900_000],
    ['0', 0],
    ['0s', 0],
    ['', undefined],
    ['5', undefined],
    ['5x', undefined],
    ['-5m', undefined],
    ['5m junk', undefined],
  ])('%j is %j ms', (input, want) => {
    expect(parseGoDuration(input)).toBe(want);
  });
});
