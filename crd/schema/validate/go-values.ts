// How kube-apiserver sees a decoded JSON value, and how it prints one.
//
// kube decodes a custom resource with integers preserved: a number literal that parses as an int64
// becomes int64, anything else (a fraction, an exponent, or out of int64 range) becomes float64.
// The two behave differently in kube-openapi (which numeric check runs, how bounds print, enum
// matching through Go conversions) and in reflect.DeepEqual. JavaScript has one number type, so
// the caller tells us where float literals were (a trie the walk steps down with dchild and dindex,
// O(1) a step); every other integral number is an int64.
import { GoPrinted, goQuote } from '../../../apimachinery/field-errors.js';
import { type DPath, FLOAT, FloatLiterals, dchild, dindex } from '../../../apimachinery/float-literals.js';
import { compareGoStrings } from '../../../apimachinery/go-sort.js';

export { type DPath, dchild, dindex } from '../../../apimachinery/float-literals.js';

/** Whether the number at a data path is a Go float64 (otherwise int64). */
export type FloatInfo = (dpath: DPath, value: number) => boolean;

/** What a validation pass knows of the values it validates: which numbers were float literals. */
export interface ValidationContext {
  isFloat: FloatInfo;
  /** The validated value's place among the float literals (undefined: none). */
  floats: DPath;
}

export type GoKind = 'nil' | 'bool' | 'string' | 'int' | 'float' | 'slice' | 'map';

const TWO63 = 2 ** 63;

/** Numbers kube would have decoded as float64, without knowing the literal (stored objects). */
export const plainFloat: FloatInfo = (_p, v) => !Number.isInteger(v) || Math.abs(v) >= TWO63;

/** Numbers of a decoded body: plainFloat's, and those whose literal was a float. */
const literalFloat: FloatInfo = (d, v) => d === FLOAT || plainFloat(d, v);

/**
 * The context of a body's validation from its float literals: the parser's, or path texts (a map
 * key written either way, `spec.labels.a` or `spec.labels[a]`).
 */
export function floatContext(floatLiterals: FloatLiterals | ReadonlySet<string> | undefined): ValidationContext {
  if (floatLiterals === undefined) return { isFloat: plainFloat, floats: undefined };
  const lits = floatLiterals instanceof FloatLiterals ? floatLiterals : FloatLiterals.fromPaths(floatLiterals);
  return { isFloat: literalFloat, floats: lits.root };
}

export function goKind(v: unknown, dpath: DPath, isFloat: FloatInfo): GoKind {
  if (v === null || v === undefined) return 'nil';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'number':
      return isFloat(dpath, v) ? 'float' : 'int';
    case 'bigint':
      // An integer beyond 2^53 kept exact (server/json.ts): an int64.
      return 'int';
    case 'object':
      return Array.isArray(v) ? 'slice' : 'map';
    default:
      return 'map';
  }
}

/** Go's float64 → int64 conversion on amd64 (out of range and NaN give the minimum int64). */
export function goInt64(f: number): number {
  if (!Number.isFinite(f) || f >= TWO63 || f < -TWO63) return -TWO63;
  return Math.trunc(f) || 0;
}

/** An int64 printed exactly (%d). */
export function goIntString(n: number | bigint): string {
  if (typeof n === 'bigint') return n.toString();
  return Number.isFinite(n) ? BigInt(Math.trunc(n)).toString() : String(n);
}

/**
 * go-openapi swag.IsFloat64AJSONInteger (v0.23): an integer within ±(2^53-1), or a positive value
 * whose fraction is within a relative 1e-9 of its truncation.
 */
export function isJSONInteger(f: number): boolean {
  const max = 2 ** 53 - 1;
  if (!Number.isFinite(f) || f < -max || f > max) return false;
  if (Number.isInteger(f)) return true;
  if (f < 1) return false;
  const g = Math.trunc(f);
  return (f - g) / Math.min(f + g, Number.MAX_VALUE) < 1e-9;
}

/** Go's %v (and %#v) of a float64: shortest digits, exponent form below 1e-4 and from 1e6 up. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, e] = f.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) {
    return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(f);
}

/** Go's %f (precision 6). */
export function goFixed6(f: number): string {
  if (!Number.isFinite(f)) return goFloat(f);
  return Math.abs(f) < 1e21 ? f.toFixed(6) : `${BigInt(Math.trunc(f)).toString()}.000000`;
}

function goNumber(v: number | bigint, dpath: DPath, isFloat: FloatInfo): string {
  if (typeof v === 'bigint') return v.toString();
  return isFloat(dpath, v) ? goFloat(v) : goIntString(v);
}

/** Text to write as is, beside values still to be printed, on a printer's to-do stack. */
class Raw {
  constructor(readonly text: string) {}
}

/**
 * Go's %#v of a decoded JSON value (as it sits inside interface{}). Values may nest 10,000 deep
 * (kube's decoder limit), so nested values wait on an explicit stack, not on the call stack.
 */
export function goSharpV(v: unknown, dpath: DPath, isFloat: FloatInfo): string {
  const out: string[] = [];
  const todo: Array<Raw | { v: unknown; dpath: DPath }> = [{ v, dpath }];
  while (todo.length > 0) {
    const t = todo.pop()!;
    if (t instanceof Raw) {
      out.push(t.text);
      continue;
    }
    switch (goKind(t.v, t.dpath, isFloat)) {
      case 'nil':
        out.push('interface {}(nil)');
        break;
      case 'bool':
        out.push(String(t.v));
        break;
      case 'string':
        out.push(goQuote(t.v as string));
        break;
      case 'int':
      case 'float':
        out.push(goNumber(t.v as number, t.dpath, isFloat));
        break;
      case 'slice': {
        const a = t.v as unknown[];
        // Pushed in reverse: the stack hands them back in order.
        todo.push(new Raw('}'));
        for (let i = a.length - 1; i >= 0; i--) {
          todo.push({ v: a[i], dpath: dindex(t.dpath, i) });
          if (i > 0) todo.push(new Raw(', '));
        }
        out.push('[]interface {}{');
        break;
      }
      case 'map': {
        const m = t.v as Record<string, unknown>;
        const keys = Object.keys(m).sort(compareGoStrings);
        todo.push(new Raw('}'));
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i]!;
          todo.push({ v: m[k], dpath: dchild(t.dpath, k) });
          todo.push(new Raw(`${i > 0 ? ', ' : ''}${goQuote(k)}:`));
        }
        out.push('map[string]interface {}{');
        break;
      }
    }
  }
  return out.join('');
}

/** %#v of a map[string]interface{} built from entries whose values live elsewhere in the data. */
export function goSharpMap(
  entries: ReadonlyArray<readonly [key: string, value: unknown, dpath: DPath]>,
  isFloat: FloatInfo,
): string {
  const parts = [...entries]
    .sort((a, b) => compareGoStrings(a[0], b[0]))
    .map(([k, v, p]) => `${goQuote(k)}:${goSharpV(v, p, isFloat)}`);
  return `map[string]interface {}{${parts.join(', ')}}`;
}

/**
 * A value as kube's field.Error prints it (ErrorBody): scalars with %v, strings %q, maps and slices
 * with %#v. Returned in the shape formatBadValue understands.
 */
export function goBadValue(v: unknown, dpath: DPath, isFloat: FloatInfo): unknown {
  if (v === undefined) return null;
  if (typeof v === 'number') {
    if (!isFloat(dpath, v)) return v;
    const s = goFloat(v);
    return s === String(v) ? v : new GoPrinted(s);
  }
  if (typeof v === 'object' && v !== null) return new GoPrinted(goSharpV(v, dpath, isFloat));
  if (typeof v !== 'string' && typeof v !== 'boolean' && v !== null) return new GoPrinted(String(v));
  return v;
}

/** reflect.DeepEqual of two decoded values (int64 and float64 are different types); any depth. */
export function goDeepEqual(
  a: unknown,
  aPath: DPath,
  aFloat: FloatInfo,
  b: unknown,
  bPath: DPath,
  bFloat: FloatInfo,
): boolean {
  const pending: Array<[a: unknown, aPath: DPath, b: unknown, bPath: DPath]> = [[a, aPath, b, bPath]];
  while (pending.length > 0) {
    const [x, xPath, y, yPath] = pending.pop()!;
    const kind = goKind(x, xPath, aFloat);
    if (kind !== goKind(y, yPath, bFloat)) return false;
    if (kind === 'slice') {
      const xs = x as unknown[];
      const ys = y as unknown[];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) pending.push([xs[i], dindex(xPath, i), ys[i], dindex(yPath, i)]);
    } else if (kind === 'map') {
      const xm = x as Record<string, unknown>;
      const ym = y as Record<string, unknown>;
      const keys = Object.keys(xm);
      if (keys.length !== Object.keys(ym).length) return false;
      for (const k of keys) {
        if (!Object.hasOwn(ym, k)) return false;
        pending.push([xm[k], dchild(xPath, k), ym[k], dchild(yPath, k)]);
      }
    } else if (kind !== 'nil' && x !== y) return false;
  }
  return true;
}

/** Go's string(rune(x)) through reflect's int → string conversion. */
function goRuneString(x: number): string {
  if (x < -(2 ** 31) || x > 2 ** 31 - 1) return '\uFFFD';
  if (x < 0 || x > 0x10ffff || (x >= 0xd800 && x <= 0xdfff)) return '\uFFFD';
  return String.fromCodePoint(x);
}

/**
 * kube-openapi's enum check for one allowed value: the data converted to the allowed value's Go
 * type (where reflect allows it) and then reflect.DeepEqual. Allowed values come from the CRD's
 * JSON, so their numbers are int64 when integral.
 */
export function goEnumMatch(data: unknown, dpath: DPath, isFloat: FloatInfo, allowed: unknown): boolean {
  const ek = goKind(allowed, undefined, plainFloat);
  const dk = goKind(data, dpath, isFloat);
  if (ek === 'nil' || dk === 'nil') return false;
  switch (ek) {
    case 'string':
      if (dk === 'string') return data === allowed;
      if (dk === 'int') return goRuneString(data as number) === allowed;
      return false;
    case 'int':
      if (dk === 'int') return data === allowed;
      if (dk === 'float') return goInt64(data as number) === allowed;
      return false;
    case 'float':
      return (dk === 'int' || dk === 'float') && data === allowed;
    case 'bool':
      return dk === 'bool' && data === allowed;
    default:
      return goDeepEqual(data, dpath, isFloat, allowed, undefined, plainFloat);
  }
}
