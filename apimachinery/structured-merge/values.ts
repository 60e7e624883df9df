// JSON values as structured merge sees them: ordering, Go-style printing and Go-style JSON.
//
// Objects here are decoded JSON: null, booleans, numbers (bigints for integers past 2^53), strings,
// arrays and plain objects. A member whose value is `undefined` counts as absent, as it would once
// serialised. SMD distinguishes integers from floats only when printing; a JS number that is an
// integer is treated as an int64, any other number as a float64.
import { compareGoStrings } from '../go-sort.js';
import { goQuote } from '../quote.js';
import { deepEqual } from '../equality.js';
import { isJsonObject } from '../object.js';

/** A decoded JSON object. */
type JSONObject = { [key: string]: unknown };

/** A scalar in SMD's sense: number, string or boolean (null is not one). */
export function isScalar(v: unknown): v is number | bigint | string | boolean {
  const t = typeof v;
  return t === 'number' || t === 'bigint' || t === 'string' || t === 'boolean';
}

/** An object with no present members. */
export function isEmptyObject(o: JSONObject): boolean {
  for (const k in o) if (Object.hasOwn(o, k) && o[k] !== undefined) return false;
  return true;
}

/** The members of an object that are present (not `undefined`), in insertion order. */
export function presentEntries(o: JSONObject): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const k of Object.keys(o)) if (o[k] !== undefined) out.push([k, o[k]]);
  return out;
}

/** Sets a member even when the key is `__proto__`, which plain assignment would not. */
export function defineMember(o: { [key: string]: unknown }, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** An object's own member (never one inherited from Object.prototype, such as `constructor`). */
export function own(o: JSONObject, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Equality of JSON values, key-order-insensitive (SMD's value.Equals). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  return deepEqual(a, b);
}

/** Rank of a value's kind in SMD's ordering: numbers, strings, booleans, lists, maps, null. */
function kindRank(v: unknown): number {
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 0;
    case 'string':
      return 1;
    case 'boolean':
      return 2;
    default:
      if (Array.isArray(v)) return 3;
      if (isJsonObject(v)) return 4;
      return 5;
  }
}

/** SMD's value.Compare: a total order over JSON values, used to sort set items and keys. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = kindRank(a);
  const rb = kindRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0: {
      // number and bigint compare across types in JS, as SMD compares int and float numerically.
      const x = a as number | bigint;
      const y = b as number | bigint;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 1:
      return compareGoStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= x.length && i >= y.length) return 0;
        if (i >= x.length) return -1;
        if (i >= y.length) return 1;
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
    }
    case 4:
      return compareMaps(a as JSONObject, b as JSONObject);
    default:
      return 0;
  }
}

/** SMD's MapCompare: walk the union of keys in lexical order; a missing key sorts after. */
function compareMaps(a: JSONObject, b: JSONObject): number {
  const la = presentEntries(a).length;
  const lb = presentEntries(b).length;
  if (la === 0 && lb === 0) return 0;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => a[k] !== undefined || b[k] !== undefined)
    .sort(compareGoStrings);
  let i = 0;
  for (const k of keys) {
    let c: number;
    if (i === la) c = -1;
    else if (i === lb) c = 1;
    else if (a[k] === undefined) c = 1;
    else if (b[k] === undefined) c = -1;
    else c = compareValues(a[k], b[k]);
    i++;
    if (c !== 0) return c;
  }
  return 0;
}

/** SMD's value.ToString, as used in path strings (`[name="a"]`, `[=5]`). */
export function goValueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? String(v) : goFloatV(v);
    case 'bigint':
      return v.toString();
    case 'string':
      return goQuote(v);
    case 'boolean':
      return String(v);
    default:
      break;
  }
  if (Array.isArray(v)) return '[' + v.map(goValueString).join(',') + ']';
  if (isJsonObject(v)) {
    return presentEntries(v)
      .sort((x, y) => compareGoStrings(x[0], y[0]))
      .map(([k, x]) => `${k}=${goValueString(x)}`)
      .join('');
  }
  return '{{undefined}}';
}

/**
 * Go's `%v` for a float64: the shortest digits, in exponent form when the exponent is below -4
 * or at least 6 (the cut-over `%g` uses for shortest precision), with at least two exponent digits.
 */
function goFloatV(f: number): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(f);
}
