// Kube's quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go) over
// resource.Quantity's arithmetic: a quantity is an exact rational here, parsed as
// resource.ParseQuantity parses it (digits, then a binary, decimal or exponent suffix; beyond
// nano precision rounded away from zero) with its error texts.
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, DoubleType, IntType, objectType, StringType } from '../types.js';
import { CelError, MAX_INT64, MIN_INT64, ObjectValue, type Val, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';

const QUANTITY_TYPE = objectType('kubernetes.Quantity');

class QuantityValue extends ObjectValue {
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

const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const NANO = 1_000_000_000n;

/**
 * Exponent suffixes (`1e5`) beyond this are refused as unparseable: kube's inf.Dec keeps the
 * exponent as a scale, but exact rationals here would spend time and memory in proportion to it.
 */
const MAX_EXPONENT = 100_000;
const MAX_BINARY = (1n << 63n) - 1n;

/** resource.parseQuantityString: sign, digits, an optional fraction, then the suffix; undefined when text is left over. */
function scanQuantity(s: string): { negative: boolean; num: string; frac: string; suffix: string } | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(s);
  if (m === null) return undefined;
  const [, sign, num, frac = '', suffix] = m as unknown as [string, string, string, string | undefined, string];
  return { negative: sign === '-', num, frac, suffix };
}

/** resource.ParseQuantity: the value, or its error text. */
function parseQuantity(s: string): QuantityValue | string {
  if (s === '') return ERR_FORMAT_WRONG;
  const scanned = scanQuantity(s);
  if (scanned === undefined) return ERR_FORMAT_WRONG;
  const { negative, num: whole, frac, suffix } = scanned;
  let num = BigInt(`${whole}${frac}` || '0');
  let scale = -frac.length;
  const binary = BINARY[suffix];
  if (binary !== undefined) num *= binary;
  else {
    let exp: number | undefined = DECIMAL[suffix];
    if (exp === undefined && /^[eE][-+]?[0-9]+$/.test(suffix)) exp = Number(suffix.slice(1));
    if (exp === undefined) return ERR_SUFFIX;
    if (exp > MAX_EXPONENT) return ERR_NUMERIC;
    scale += exp;
  }
  // The magnitude: below nano it is rounded up (away from zero); a binary amount is capped at 2^63 - 1.
  let den = 1n;
  if (scale >= 0) num *= 10n ** BigInt(scale);
  else if (scale >= -9) den = 10n ** BigInt(-scale);
  else if (num !== 0n) {
    // Fewer digits than the shift leaves above nano: the least nano, without building 10^-scale.
    const shift = -scale - 9;
    num = num.toString().length <= shift ? 1n : (num + 10n ** BigInt(shift) - 1n) / 10n ** BigInt(shift);
    den = NANO;
  }
  if (binary !== undefined && num > MAX_BINARY * den) num = MAX_BINARY * den;
  return new QuantityValue(negative ? -num : num, den);
}

function toQuantity(s: string): Val {
  const q = parseQuantity(s);
  return typeof q === 'string' ? new CelError(q) : q;
}

const q = (v: Value): QuantityValue => v as QuantityValue;
const plus = (a: QuantityValue, b: QuantityValue, sign: bigint): QuantityValue =>
  new QuantityValue(a.num * b.den + sign * b.num * a.den, a.den * b.den);
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
