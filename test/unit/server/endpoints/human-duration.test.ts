import { describe, expect, it } from 'vitest';
import { humanDuration } from '../../../../server/endpoints/table/human-duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

// kube's TestHumanDuration and TestHumanDurationBoundaries (util/duration/duration_test.go), in
// milliseconds; Go's `-2s + 1ns` becomes -1999ms, which truncates the same way.
describe('humanDuration', () => {
  it.each<{ ms: number; want: string }>([
    { ms: S, want: '1s' },
    { ms: 70 * S, want: '70s' },
    { ms: 190 * S, want: '3m10s' },
    { ms: 70 * M, want: '70m' },
    { ms: 47 * H, want: '47h' },
    { ms: 49 * H, want: '2d1h' },
    { ms: (8 * 24 + 2) * H, want: '8d' },
    { ms: 367 * 24 * H, want: '367d' },
    { ms: (365 * 2 * 24 + 25) * H, want: '2y1d' },
    { ms: (365 * 8 * 24 + 2) * H, want: '8y' },
    { ms: -2 * S, want: '<invalid>' },
    { ms: -2 * S + 1, want: '0s' },
    { ms: 0, want: '0s' },
    { ms: S - 1, want: '0s' },
    { ms: 2 * M - 1, want: '119s' },
    { ms: 2 * M, want: '2m' },
    { ms: 2 * M + S, want: '2m1s' },
    { ms: 10 * M - 1, want: '9m59s' },
    { ms: 10 * M, want: '10m' },
    { ms: 10 * M + S, want: '10m' },
    { ms: 3 * H - 1, want: '179m' },
    { ms: 3 * H, want: '3h' },
    { ms: 3 * H + M, want: '3h1m' },
    { ms: 8 * H - 1, want: '7h59m' },
    { ms: 8 * H, want: '8h' },
    { ms: 8 * H + 59 * M, want: '8h' },
    { ms: 2 * D - 1, want: '47h' },
    { ms: 2 * D, want: '2d' },
    { ms: 2 * D + H, want: '2d1h' },
    { ms: 8 * D - 1, want: '7d23h' },
    { ms: 8 * D, want: '8d' },
    { ms: 8 * D + 23 * H, want: '8d' },
    { ms: 2 * Y - 1, want: '729d' },
    { ms: 2 * Y, want: '2y' },
    { ms: 2 * Y + 23 * H, want: '2y' },
    { ms: 2 * Y + 23 * H + 59 * M, want: '2y' },
    { ms: 2 * Y + D - 1, want: '2y' },
    { ms: 2 * Y + D, want: '2y1d' },
    { ms: 3 * Y, want: '3y' },
    { ms: 4 * Y, want: '4y' },
    { ms: 5 * Y, want: '5y' },
    { ms: 6 * Y, want: '6y' },
    { ms: 7 * Y, want: '7y' },
    { ms: 8 * Y - 1, want: '7y364d' },
    { ms: 8 * Y, want: '8y' },
    { ms: 8 * Y + 364 * D, want: '8y' },
    { ms: 9 * Y, want: '9y' },
    // The examples kubectl users see.
    { ms: 45 * S, want: '45s' },
    { ms: 5 * M, want: '5m' },
    { ms: 3 * H + 10 * M, want: '3h10m' },
    { ms: 2 * Y + 326 * D, want: '2y326d' },
  ])('$ms ms is $want', ({ ms, want }) => {
    expect(humanDuration(ms)).toBe(want);
  });
});
