// JSON values as structured merge sees them: ordering, Go-style printing and Go-style JSON.
//
// Objects here are decoded JSON: null, booleans, numbers (bigints for integers past 2^53), strings,
// arrays and plain objects. A member whose value is `undefined` counts as absent, as it would once
// serialised. SMD distinguishes integers from floats only when printing; a JS number that is an
// integer is treated as an int64, any other number as a float64.
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

/**
 * Go's strings.Compare: byte order of the UTF-8 encodings, which is code point order. JS's `<`
 * compares UTF-16 code units, which differs once surrogate pairs meet code units above U+E000.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Shifts surrogates above the rest of the BMP so code units order as code points do. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
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
      return compareStrings(a as string, b as string);
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
    .sort(compareStrings);
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
      .sort((x, y) => compareStrings(x[0], y[0]))
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

/**
 * JSON text as SMD's serialiser (jsoniter, standard-library compatible) writes it: object keys
 * sorted, `<`, `>`, `&`, U+2028 and U+2029 escaped, other control characters as `\u00XX`.
 */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'number':
      // JS and Go agree on the shortest digits and on exponent form below 1e-6 and from 1e21.
      return Number.isFinite(v) ? String(v) : 'null';
    case 'bigint':
      return v.toString();
    case 'string':
      return goJSONString(v);
    case 'boolean':
      return String(v);
    default:
      break;
  }
  if (Array.isArray(v)) return '[' + v.map((x) => goJSON(x)).join(',') + ']';
  if (isJsonObject(v)) {
    const entries = presentEntries(v).sort((x, y) => compareStrings(x[0], y[0]));
    return '{' + entries.map(([k, x]) => goJSONString(k) + ':' + goJSON(x)).join(',') + '}';
  }
  return 'null';
}

/** A JSON string literal with Go's escaping (HTML-safe, line separators escaped). */
export function goJSONString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += '\\ufffd';
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x3c:
      case 0x3e:
      case 0x26:
      case 0x2028:
      case 0x2029:
        out += '\\u' + c.toString(16).padStart(4, '0');
        continue;
      default:
        break;
    }
    if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += s[i]!;
  }
  return out + '"';
}
