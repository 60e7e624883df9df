// Kube's quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go) over
// resource.Quantity's arithmetic: a quantity is an exact rational here, parsed as
// resource.ParseQuantity parses it (digits, then a binary, decimal or exponent suffix; beyond
// nano precision rounded away from zero) with its error texts.
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, DoubleType, IntType, objectType, StringType } from '../types.js';
import { CelError, MAX_INT64, MIN_INT64, ObjectValue, type Val, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';

export const QUANTITY_TYPE = objectType('kubernetes.Quantity');

export class QuantityValue extends ObjectValue {
  readonly typeName = 'kubernetes.Quantity';
  /** The value is num / den, den > 0. */
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {
    super();
  }
  cmp(o: QuantityValue): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  equals(other: ObjectValue): boolean {
    return other instanceof QuantityValue && this.cmp(other) === 0;
  }
  /** resource.Quantity.AsInt64: an integral value within int64. */
  asInt64(): bigint | undefined {
    if (this.num % this.den !== 0n) return undefined;
    const v = this.num / this.den;
    return v < MIN_INT64 || v > MAX_INT64 ? undefined : v;
  }
}

const ERR_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const ERR_NUMERIC = 'unable to parse numeric part of quantity';
const ERR_SUFFIX = "unable to parse quantity's suffix";

const BINARY: Readonly<Record<string, bigint>> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const NANO = 1_000_000_000n;

/** resource.ParseQuantity: the value, or its error text. */
export function parseQuantity(s: string): QuantityValue | string {
  if (s === '') return ERR_FORMAT_WRONG;
  const m = /^([+-]?)([0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(s);
  if (m === null) return ERR_FORMAT_WRONG;
  const [, sign, number, suffix] = m as unknown as [string, string, string, string];
  if (!/^(\d+\.?\d*|\.\d+)$/.test(number)) return ERR_NUMERIC;
  const [whole, frac = ''] = number.split('.') as [string, string | undefined];
  let num = BigInt(`${whole}${frac}` || '0') * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(frac.length);
  const binary = BINARY[suffix];
  if (binary !== undefined) num *= binary;
  else {
    let exp: number | undefined = DECIMAL[suffix];
    if (exp === undefined && /^[eE][-+]?\d+$/.test(suffix)) exp = Number(suffix.slice(1));
    if (exp === undefined || !Number.isSafeInteger(exp)) return ERR_SUFFIX;
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  }
  // Precision below nano is rounded up, away from zero.
  if (den > NANO) {
    const scaled = num * NANO;
    let q = scaled / den;
    if (scaled % den !== 0n) q += num < 0n ? -1n : 1n;
    return new QuantityValue(q, NANO);
  }
  return new QuantityValue(num, den);
}

function toQuantity(s: string): Val {
  const q = parseQuantity(s);
  return typeof q === 'string' ? new CelError(q) : q;
}

const q = (v: Value): QuantityValue => v as QuantityValue;
const plus = (a: QuantityValue, b: QuantityValue, sign: bigint): QuantityValue => new QuantityValue(a.num * b.den + sign * b.num * a.den, a.den * b.den);
const ofInt = (i: Value): QuantityValue => new QuantityValue(i as bigint, 1n);

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['string_to_quantity', ([s]) => toQuantity(s as string)],
  ['is_quantity_string', ([s]) => typeof parseQuantity(s as string) !== 'string'],
  ['quantity_sign', ([a]) => (q(a!).num > 0n ? 1n : q(a!).num < 0n ? -1n : 0n)],
  ['quantity_is_greater_than', ([a, b]) => q(a!).cmp(q(b!)) === 1],
  ['quantity_is_less_than', ([a, b]) => q(a!).cmp(q(b!)) === -1],
  ['quantity_compare_to', ([a, b]) => BigInt(q(a!).cmp(q(b!)))],
  ['quantity_get_float', ([a]) => Number(q(a!).num) / Number(q(a!).den)],
  ['quantity_get_int', ([a]) => q(a!).asInt64() ?? new CelError('cannot convert value to integer')],
  ['quantity_is_integer', ([a]) => q(a!).asInt64() !== undefined],
  ['quantity_add', ([a, b]) => plus(q(a!), q(b!), 1n)],
  ['quantity_add_int', ([a, b]) => plus(q(a!), ofInt(b!), 1n)],
  ['quantity_sub', ([a, b]) => plus(q(a!), q(b!), -1n)],
  ['quantity_sub_int', ([a, b]) => plus(q(a!), ofInt(b!), -1n)],
];

const Q = QUANTITY_TYPE;

export const QUANTITY_LIBRARY: KubeLibrary = {
  functions: [
    func('quantity', overload('string_to_quantity', [StringType], Q)),
    func('isQuantity', overload('is_quantity_string', [StringType], BoolType)),
    // Global in kube (cel.Overload): `sign(q)`, not `q.sign()`.
    func('sign', overload('quantity_sign', [Q], IntType)),
    func('isGreaterThan', memberOverload('quantity_is_greater_than', [Q, Q], BoolType)),
    func('isLessThan', memberOverload('quantity_is_less_than', [Q, Q], BoolType)),
    func('compareTo', memberOverload('quantity_compare_to', [Q, Q], IntType)),
    func('asApproximateFloat', memberOverload('quantity_get_float', [Q], DoubleType)),
    func('asInteger', memberOverload('quantity_get_int', [Q], IntType)),
    func('isInteger', memberOverload('quantity_is_integer', [Q], BoolType)),
    func('add', memberOverload('quantity_add', [Q, Q], Q), memberOverload('quantity_add_int', [Q, IntType], Q)),
    func('sub', memberOverload('quantity_sub', [Q, Q], Q), memberOverload('quantity_sub_int', [Q, IntType], Q)),
  ],
  impls: new Map(IMPLS),
};
