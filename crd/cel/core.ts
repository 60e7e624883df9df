// What the engine lacks of the CEL spec's core: the ordering of bytes, and its value ranges.
//
// Not added, on purpose: equality between numbers of different types (`1.0 == 1`, `2u != 2`).
// Declaring `double == int` or `int == uint` makes the engine's overload lookup ambiguous for an
// element of an empty list literal (`[].exists(e, e == 2)`), which costs more than it gains.
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from '../../apimachinery/int64.js';

/** Lexicographic order of two byte strings (the spec orders bytes as unsigned octets). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export function registerCoreOverloads(env: Environment): void {
  const order: [string, (c: number) => boolean][] = [
    ['<', (c) => c < 0],
    ['<=', (c) => c <= 0],
    ['>', (c) => c > 0],
    ['>=', (c) => c >= 0],
  ];
  for (const [op, test] of order)
    env.registerOperator(`bytes ${op} bytes`, (a: Uint8Array, b: Uint8Array) => test(compareBytes(a, b)));
}

/** CEL timestamps span 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
const TIMESTAMP_MIN_MS = new Date('0001-01-01T00:00:00Z').getTime();
const TIMESTAMP_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * The spec's value ranges, checked on the result of every arithmetic and call node (env.ts): the
 * engine computes ints with unbounded bigints and times with JS Dates, so `-(-2^63)`, `2^62 * 4`,
 * or a timestamp past year 9999 would otherwise evaluate; cel-go reports them as errors (its texts).
 */
export function checkRange(v: unknown): void {
  if (typeof v === 'bigint') {
    if (v < INT64_MIN || v > INT64_MAX) throw new Error('integer overflow');
  } else if (v instanceof UnsignedInt) {
    if (v.value < 0n || v.value > UINT64_MAX) throw new Error('unsigned integer overflow');
  } else if (v instanceof Date) {
    const t = v.getTime();
    if (!(t >= TIMESTAMP_MIN_MS && t <= TIMESTAMP_MAX_MS)) throw new Error('timestamp out of range');
  } else if (v instanceof Duration) {
    // cel-go's durations are Go's: int64 nanoseconds (about ±292 years).
    const ns = v.seconds * 1_000_000_000n + BigInt(v.nanos);
    if (ns < INT64_MIN || ns > INT64_MAX) throw new Error('duration out of range');
  }
}
