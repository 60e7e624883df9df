// int() and uint() as cel-go has them, where the engine's differ: int(double) and uint(double)
// error outside int64/uint64 (the engine returns any bigint for int(1e99)), int(uint) and
// int(timestamp) exist, int(string) and uint(string) take decimal digits only (the engine's BigInt
// parse takes '', '0b11' and '+1' for uint). Error texts are cel-go's.
//
// `int` and `uint` calls are renamed in the parsed AST to the k8s_ overloads below (env.ts
// prepareAst, `conversionRenames`), so every overload of them is registered here.
import type { Environment } from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from '../../apimachinery/int64.js';

/** 2^63 and 2^64 as doubles: cel-go's bounds for double → int and double → uint (exclusive). */
const TWO_63 = 2 ** 63;
const TWO_64 = 2 ** 64;

/** Engine built-ins this module replaces (call name → our overloads' name). */
export const conversionRenames: Record<string, string> = { int: 'k8s_int', uint: 'k8s_uint' };

const intOverflow = (): Error => new Error('integer overflow');
const uintOverflow = (): Error => new Error('unsigned integer overflow');

/** int(double): truncated toward zero; cel-go's doubleToInt64Checked rejects ±2^63 themselves. */
export function doubleToInt(v: number): bigint {
  if (!(v > -TWO_63 && v < TWO_63)) throw intOverflow(); // NaN and ±Inf included
  return BigInt(Math.trunc(v));
}

/** uint(double): truncated toward zero; cel-go rejects any negative double, -0.5 included. */
export function doubleToUint(v: number): UnsignedInt {
  if (!(v >= 0 && v < TWO_64)) throw uintOverflow();
  return new UnsignedInt(BigInt(Math.trunc(v)));
}

/** int(string): Go's strconv.ParseInt(s, 10, 64). */
export function stringToInt(s: string): bigint {
  const n = /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
  if (n === undefined || n < INT64_MIN || n > INT64_MAX)
    throw new Error("type conversion error from 'string' to 'int'");
  return n;
}

/** uint(string): Go's strconv.ParseUint(s, 10, 64), which takes no sign. */
export function stringToUint(s: string): UnsignedInt {
  const n = /^\d+$/.test(s) ? BigInt(s) : undefined;
  if (n === undefined || n > UINT64_MAX) throw new Error("type conversion error from 'string' to 'uint'");
  return new UnsignedInt(n);
}

type Fn = (...args: never[]) => unknown;

/** Registers every overload of the renamed int() and uint(). */
export function registerConversions(env: Environment): void {
  const fn = (sig: string, f: Fn): void => {
    env.registerFunction(sig, f as (...args: unknown[]) => unknown);
  };
  fn('k8s_int(int): int', (v: bigint) => v);
  fn('k8s_int(uint): int', (v: UnsignedInt) => {
    if (v.value > INT64_MAX) throw intOverflow();
    return v.value;
  });
  fn('k8s_int(double): int', doubleToInt);
  fn('k8s_int(string): int', stringToInt);
  // Unix seconds, rounded down as Go's Time.Unix() is for instants before 1970.
  fn('k8s_int(google.protobuf.Timestamp): int', (t: Date) => BigInt(Math.floor(t.getTime() / 1000)));

  fn('k8s_uint(uint): uint', (v: UnsignedInt) => v);
  fn('k8s_uint(int): uint', (v: bigint) => {
    if (v < 0n) throw uintOverflow();
    return new UnsignedInt(v);
  });
  fn('k8s_uint(double): uint', doubleToUint);
  fn('k8s_uint(string): uint', stringToUint);
}
