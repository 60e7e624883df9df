// Go's view of decoded JSON, for kube's error texts: the dynamic type of a value as reflect names
// it, `==` on interface values, and fmt's %v / %s. Walks keep an explicit stack: an error may print
// a document nested 10,000 deep.
import { compareGoStrings } from '../go-sort.js';
import type { JsonValue } from '../object.js';

/** The dynamic Go type a JSON value decodes to (kube's decoder keeps integers as int64). */
export type GoKind = 'map' | 'slice' | 'string' | 'bool' | 'int64' | 'float64' | 'nil';

const INT64_LIMIT = 2 ** 63;

/** The Go kind of a decoded JSON value. */
export function goKind(v: JsonValue | undefined): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'object':
      return 'map';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) && Math.abs(v) < INT64_LIMIT ? 'int64' : 'float64';
    default:
      // int64-exact parsing may hand over a bigint.
      return 'int64';
  }
}

/** reflect.TypeOf(v) printed with %s. */
export function goTypeName(v: JsonValue | undefined): string {
  switch (goKind(v)) {
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    case 'nil':
      return '%!s(<nil>)';
    default:
      return goKind(v);
  }
}

/** Go's `a == b` on two interface values holding scalars (Go panics on maps; here they never match). */
export function goEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const ka = goKind(a);
  if (ka !== goKind(b) || ka === 'map' || ka === 'slice') return false;
  if (ka === 'nil') return true;
  // An int64 may arrive as a number or, past 2^53, a bigint.
  if (ka === 'int64' && typeof a !== typeof b) return BigInt(a as number) === BigInt(b as number);
  return a === b;
}

/**
 * A text two values share exactly when goEqual holds between them, for indexing lists by value;
 * undefined for maps and slices, which equal nothing.
 */
export function goEqualKey(v: JsonValue | undefined): string | undefined {
  const k = goKind(v);
  switch (k) {
    case 'map':
    case 'slice':
      return undefined;
    case 'nil':
      return 'nil';
    case 'int64':
      // Past 2^53 a number prints rounded; BigInt prints the integer it holds.
      return `i${typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : BigInt(v as number).toString()}`;
    default:
      return `${k}:${String(v)}`;
  }
}

/** strconv.FormatFloat(f, 'g', -1, 64), which %v uses: an exponent past -4..5 switches to e-notation. */
function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(f);
}

function scalar(v: JsonValue, verb: 'v' | 's'): string {
  const k = goKind(v);
  let text: string;
  if (k === 'nil') return verb === 'v' ? '<nil>' : '%!s(<nil>)';
  if (k === 'string') return v as string;
  if (k === 'float64') text = goFloat(v as number);
  else text = String(v);
  return verb === 'v' ? text : `%!s(${k}=${text})`;
}

/** fmt.Sprintf("%v") (or "%s") of a decoded JSON value: `map[a:1 b:[x y]]`, keys sorted. */
export function goFormat(value: JsonValue | undefined, verb: 'v' | 's' = 'v'): string {
  const out: string[] = [];
  // Work items: a value to print, or literal text.
  const stack: Array<{ text: string } | { value: JsonValue }> = [{ value: value === undefined ? null : value }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i]! });
        if (i > 0) stack.push({ text: ' ' });
      }
    } else if (typeof v === 'object' && v !== null) {
      out.push('map[');
      stack.push({ text: ']' });
      const keys = Object.keys(v).sort(compareGoStrings);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: v[keys[i]!]! });
        stack.push({ text: `${keys[i]}:` });
        if (i > 0) stack.push({ text: ' ' });
      }
    } else {
      out.push(scalar(v, verb));
    }
  }
  return out.join('');
}
