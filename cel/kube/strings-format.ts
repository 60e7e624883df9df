// cel-go's string.format() as kube-apiserver runs it, over cel/'s values.
//
// format() is cel-go's ORIGINAL formatter (ext/formatting.go: parseFormatString, stringFormatter),
// not the cel-spec conformance tests' one (ext/formatting_v2.go): kube configures
// ext.Strings(ext.StringsVersion(2)) (apiserver/pkg/cel/environment/base.go) and cel-go only
// switches to the second formatter from strings version 4, so a messageExpression must print what
// the original one prints, errors included:
//   - %s prints a double with Go's %g, and inside a list or map every member as a CEL literal:
//     strings and bytes quoted (Go %q), doubles as %.6f, timestamp("…"), duration("…"), map
//     entries `key:value`, sorted by the printed key;
//   - %d, %b, %o take only ints and uints (and bools for %b); %f and %e only doubles, plus the
//     strings "NaN", "Infinity" and "-Infinity";
//   - %f and %e go through golang.org/x/text/message with cel-go's default locale en_US (kube sets
//     none): the integer part grouped by commas, ±Inf as ∞, %e as "2.718280 × 10⁰⁰", and cel-go
//     builds %e's Go verb as "%<precision>e", so its precision is a width (6 when absent) and the
//     digits after the point are always 6.
// The strings library's compile-time check of format() calls (FORMAT_VALIDATOR) reads the same
// clauses (cel-go's stringFormatValidator).
import { goQuote } from '../../apimachinery/quote.js';
import { type Expr, subExpressions } from '../ast.js';
import type { CheckedAst } from '../checker.js';
import { durationString, timestampString } from '../time.js';
import type { Kind as TypeKind, Type } from '../types.js';
import type { AstValidator } from '../validators.js';
import {
  compareStrings,
  Duration,
  MapValue,
  type MapKey,
  Timestamp,
  TypeValue,
  typeName,
  Uint,
  type Value,
} from '../values.js';
import { goFixed, goG, goNonFinite, scientificParts, withPoint } from './gofmt.js';

/** An error raised by format(), its text as cel-go's; at an expression when the static check found it. */
export class FormatError extends Error {
  constructor(
    message: string,
    readonly exprId?: number,
  ) {
    super(message);
  }
}

/** cel-go's texts for an argument a clause does not take (at run time and in the static check). */
const CLAUSE_ERRORS: Record<'d' | 'f' | 'e' | 'b' | 'x' | 'X' | 'o', (type: string) => string> = {
  d: (t) => `decimal clause can only be used on integers, was given ${t}`,
  f: (t) => `fixed-point clause can only be used on doubles, was given ${t}`,
  e: (t) => `scientific clause can only be used on doubles, was given ${t}`,
  b: (t) => `only integers and bools can be formatted as binary, was given ${t}`,
  x: (t) => `only integers, byte buffers, and strings can be formatted as hex, was given ${t}`,
  X: (t) => `only integers, byte buffers, and strings can be formatted as hex, was given ${t}`,
  o: (t) => `octal clause can only be used on integers, was given ${t}`,
};
const STRING_CLAUSE_ERROR = (t: string): string =>
  `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${t}`;

/**
 * Precision cap for %f and %e. kube has none; we keep one because a precision sets how long the
 * output is (%f's digits, %e's padding), so "%.999999999f" would build a huge string within one
 * call. At or below 100 we print what kube prints (x/text itself misbehaves from 256 on, where
 * its fraction-digit count wraps as a uint8).
 */
export const MAX_PRECISION = 100;
/** cel-go's defaultPrecision (ext/strings.go). */
const DEFAULT_PRECISION = 6;

// ---------------------------------------------------------------------------------------------
// Value kinds

type Kind =
  | 'null'
  | 'bool'
  | 'int'
  | 'uint'
  | 'double'
  | 'string'
  | 'bytes'
  | 'timestamp'
  | 'duration'
  | 'list'
  | 'map'
  | 'type'
  | 'other';

function kindOf(v: Value): Kind {
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
  }
  if (v === null) return 'null';
  if (v instanceof Uint) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Timestamp) return 'timestamp';
  if (v instanceof Duration) return 'duration';
  if (Array.isArray(v)) return 'list';
  if (v instanceof MapValue) return 'map';
  if (v instanceof TypeValue) return 'type';
  return 'other';
}

/** Go's fmt %.6f, what a double inside a list or map prints as. */
const goFixed6 = (x: number): string => goNonFinite(x) ?? goFixed(x, DEFAULT_PRECISION);

// ---------------------------------------------------------------------------------------------
// Numbers as golang.org/x/text/message prints them for en-US (the %f and %e clauses)

/** CLDR's en symbols: x/text has no sign for NaN and prints infinity as ∞. */
function localeNonFinite(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '-∞';
  return undefined;
}

/** Negative only below zero: x/text drops the sign of -0 (but keeps it on -0.001 printed as -0.00). */
const localeSign = (x: number): string => (x < 0 ? '-' : '');

/** %.{p}f: Go's exact digits, the integer part grouped by threes with commas (en's #,##0.###). */
function localeFixed(x: number, p: number): string {
  const nf = localeNonFinite(x);
  if (nf !== undefined) return nf;
  const [int, frac] = goFixed(Math.abs(x), p).split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+$)/g, ',');
  return localeSign(x) + grouped + (frac === undefined ? '' : `.${frac}`);
}

const SUPERSCRIPT_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/**
 * %{width}e: six digits after the point, en's "× 10" with narrow no-break spaces and a
 * superscript exponent of at least two digits, left-padded with spaces to `width` characters.
 */
function localeScientific(x: number, width: number): string {
  let s = localeNonFinite(x);
  if (s === undefined) {
    const { digits, exp } = scientificParts(x, DEFAULT_PRECISION);
    const power = Array.from(String(Math.abs(exp)).padStart(2, '0'), (d) => SUPERSCRIPT_DIGITS[Number(d)]).join('');
    s = `${localeSign(x)}${withPoint(digits)}\u202f×\u202f10${exp < 0 ? '⁻' : ''}${power}`;
  }
  // x/text pads by characters (runes), not UTF-16 units.
  const pad = width - Array.from(s).length;
  return pad > 0 ? ' '.repeat(pad) + s : s;
}

// ---------------------------------------------------------------------------------------------
// Strings

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** cel-go's Bytes.ConvertToType(string) fails on invalid UTF-8; FormatString reports that error %q-quoted. */
function bytesToString(b: Uint8Array): string {
  try {
    return strictUtf8.decode(b);
  } catch {
    throw new FormatError('could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string');
  }
}

// ---------------------------------------------------------------------------------------------
// %s (cel-go's FormatString) and the members of lists and maps (clauseForType, quoteForCEL)

/** A value as %s prints it: the scalars as CEL's string() converts them, lists and maps as literals. */
function formatValue(v: Value): string {
  switch (kindOf(v)) {
    case 'list':
      return formatList(v as readonly Value[]);
    case 'map':
      return formatMap(v as MapValue);
    case 'int':
    case 'bool':
    case 'string':
      return String(v);
    case 'uint':
      return (v as Uint).value.toString();
    case 'double':
      return goG(v as number);
    case 'bytes':
      return bytesToString(v as Uint8Array);
    case 'timestamp':
      return timestampString(v as Timestamp);
    case 'duration':
      return durationString(v as Duration);
    case 'type':
      return (v as TypeValue).name;
    case 'null':
      return 'null';
    default:
      throw new FormatError(STRING_CLAUSE_ERROR(typeName(v)));
  }
}

/** A list or map member as a CEL literal (clauseForType, then quoteForCEL). */
function formatMember(v: Value): string {
  switch (kindOf(v)) {
    case 'int':
    case 'uint':
      return decimal(v);
    case 'string':
      return goQuote(v as string);
    case 'bytes':
      return `b${goQuote(formatValue(v))}`;
    case 'bool':
    case 'null':
    case 'type':
      return formatValue(v);
    case 'timestamp':
      return `timestamp(${goQuote(formatValue(v))})`;
    case 'duration':
      return `duration(${goQuote(formatValue(v))})`;
    case 'list':
    case 'map':
      return formatValue(v);
    case 'double': {
      // Go's %.6f rather than the locale's, "so we can output a period as the decimal separator";
      // NaN and ±Inf are quoted, as double() reads them back.
      const x = v as number;
      const s = goFixed6(x);
      return Number.isFinite(x) ? s : goQuote(s);
    }
    default:
      throw new FormatError(`no formatting function for ${typeName(v)}`);
  }
}

function formatList(l: readonly Value[]): string {
  return `[${l.map(formatMember).join(', ')}]`;
}

/** A map key: strings quoted, bools and integers bare; CEL allows no other key kinds. */
function formatKey(k: MapKey): string {
  switch (kindOf(k)) {
    case 'string':
      return goQuote(k as string);
    case 'bool':
      return String(k);
    case 'int':
    case 'uint':
      return decimal(k);
    default:
      throw new FormatError(`no formatting function for map key of type ${typeName(k)}`);
  }
}

function formatMap(m: MapValue): string {
  const entries = [...m.pairs()];
  const printed = entries.map(([k, v]) => [formatKey(k), formatMember(v)] as const);
  // cel-go sorts by the printed key, bytewise (a stable sort, as Array.prototype.sort is).
  printed.sort((a, b) => compareStrings(a[0], b[0]));
  return `{${printed.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

// ---------------------------------------------------------------------------------------------
// The other clauses

function decimal(v: Value): string {
  switch (kindOf(v)) {
    case 'int':
      return (v as bigint).toString();
    case 'uint':
      return (v as Uint).value.toString();
    default:
      throw new FormatError(CLAUSE_ERRORS.d(typeName(v)));
  }
}

// cel-go's %f and %e also take these strings, as double() reads them.
const NON_FINITE_STRINGS: Record<string, number> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

/** A double for %f and %e: doubles, or the three non-finite strings. */
function floatArg(v: Value, verb: 'f' | 'e'): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && Object.hasOwn(NON_FINITE_STRINGS, v)) return NON_FINITE_STRINGS[v]!;
  throw new FormatError(CLAUSE_ERRORS[verb](typeName(v)));
}

/** An int or uint for %b, %o and %x; undefined for other kinds. */
function integer(v: Value): bigint | undefined {
  const k = kindOf(v);
  if (k === 'int') return v as bigint;
  if (k === 'uint') return (v as Uint).value;
  return undefined;
}

function binary(v: Value): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  const i = integer(v);
  if (i === undefined) throw new FormatError(CLAUSE_ERRORS.b(typeName(v)));
  return i.toString(2);
}

function octal(v: Value): string {
  const i = integer(v);
  if (i === undefined) throw new FormatError(CLAUSE_ERRORS.o(typeName(v)));
  return i.toString(8);
}

const hexBytes = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

function hex(v: Value, upper: boolean): string {
  let s: string;
  const i = integer(v);
  if (i !== undefined) s = i.toString(16);
  else if (typeof v === 'string') s = hexBytes(utf8.encode(v));
  else if (v instanceof Uint8Array) s = hexBytes(v);
  else throw new FormatError(CLAUSE_ERRORS.x(typeName(v)));
  return upper ? s.toUpperCase() : s;
}

// ---------------------------------------------------------------------------------------------
// The format string

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

const precisionError = (message: string): FormatError =>
  new FormatError(`could not parse formatting clause: error while parsing precision: ${message}`);

/** The precision after a clause's '%' at `i` (undefined when none); cel-go's texts for a malformed one. */
function parsePrecision(f: string, i: number): { precision: bigint | undefined; next: number } {
  if (f[i] !== '.') return { precision: undefined, next: i };
  let j = i + 1;
  for (;;) {
    if (j >= f.length) throw precisionError('could not find end of precision specifier');
    if (!isDigit(f[j])) break;
    j++;
  }
  const digits = f.slice(i + 1, j);
  // Go's strconv.Atoi: an int64.
  if (digits === '')
    throw precisionError('error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax');
  const precision = BigInt(digits);
  if (precision > 9223372036854775807n)
    throw precisionError(
      `error while converting precision to integer: strconv.Atoi: parsing "${digits}": value out of range`,
    );
  return { precision, next: j };
}

/** The verb as Go's %c prints the byte it reads (for a non-ASCII verb, the first UTF-8 byte as a rune). */
function verbText(f: string, j: number): string {
  const ch = String.fromCodePoint(f.codePointAt(j)!);
  const b = utf8.encode(ch)[0]!;
  return String.fromCharCode(b);
}

/** The precision of %f and %e, which sets the output's length (digits, width): our cap applies (see MAX_PRECISION). */
function capped(precision: bigint | undefined): number {
  const p = precision ?? BigInt(DEFAULT_PRECISION);
  if (p > BigInt(MAX_PRECISION))
    throw precisionError(`precision ${p} exceeds maximum allowed precision ${MAX_PRECISION}`);
  return Number(p);
}

type Verb = 's' | 'd' | 'f' | 'e' | 'b' | 'x' | 'X' | 'o';
const VERBS: ReadonlySet<string> = new Set<Verb>(['s', 'd', 'f', 'e', 'b', 'x', 'X', 'o']);

/** One clause of a format string (cel-go's parseFormattingClause). */
interface Clause {
  readonly verb: Verb;
  readonly precision: bigint | undefined;
}

/** The clause starting after the '%' at `i`, and where the text resumes. */
function scanClause(f: string, i: number): { clause: Clause; next: number } {
  const { precision, next } = parsePrecision(f, i);
  const verb = f[next]!;
  if (!VERBS.has(verb))
    throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${verbText(f, next)}"`);
  return { clause: { verb: verb as Verb, precision }, next: next + 1 };
}

/**
 * cel-go's parseFormatString: `%%` for a percent sign, each other clause replaced by
 * `formatterOf(clause)(index)` of its argument; `requested(index)` is told of each argument first
 * (cel-go's list.Arg, which fails past the end at run time). A formatter is made as the clause is
 * parsed (its errors are parse errors), and its errors when it runs are "error during formatting"
 * ones. Throws FormatError.
 */
function interpolate(
  f: string,
  size: number,
  requested: (index: number) => void,
  formatterOf: (clause: Clause) => (index: number) => string,
): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < f.length) {
    const pct = f.indexOf('%', i);
    if (pct < 0) {
      out += f.slice(i);
      break;
    }
    out += f.slice(i, pct);
    if (f[pct + 1] === '%') {
      out += '%';
      i = pct + 2;
      continue;
    }
    requested(argIndex);
    if (pct + 1 >= f.length) throw new FormatError('unexpected end of string');
    if (argIndex >= size) throw new FormatError(`index ${argIndex} out of range`);
    const { clause, next } = scanClause(f, pct + 1);
    const format = formatterOf(clause);
    try {
      out += format(argIndex);
    } catch (e) {
      if (!(e instanceof FormatError)) throw e;
      throw new FormatError(`error during formatting: ${e.message}`, e.exprId);
    }
    argIndex++;
    i = next;
  }
  return out;
}

/** A clause's formatter. */
function formatter(c: Clause): (v: Value) => string {
  switch (c.verb) {
    case 's':
      return formatValue;
    case 'd':
      return decimal;
    case 'f': {
      const p = capped(c.precision);
      return (v) => localeFixed(floatArg(v, 'f'), p);
    }
    case 'e': {
      // cel-go formats with "%<precision>e": the precision becomes the field width.
      const width = capped(c.precision);
      return (v) => localeScientific(floatArg(v, 'e'), width);
    }
    case 'b':
      return binary;
    case 'x':
    case 'X':
      return (v) => hex(v, c.verb === 'X');
    case 'o':
      return octal;
  }
}

/**
 * cel-go's `<string>.format(<list>)` as kube runs it: %s %d %f %e %b %x %X %o with an optional
 * precision (`%.3f`), `%%` for a percent sign. Throws FormatError with cel-go's text.
 */
export function formatString(f: string, args: readonly Value[]): string {
  return interpolate(
    f,
    args.length,
    (i) => {
      if (i >= args.length) throw new FormatError(`index ${i} out of range`);
    },
    (c) => {
      const format = formatter(c);
      return (i) => format(args[i]!);
    },
  );
}

// ---------------------------------------------------------------------------------------------
// The strings library's check of format() calls (cel-go ext/formatting.go stringFormatValidator)

/** The kinds each verb takes, as cel-go's stringFormatChecker verifies them statically (dyn always passes). */
const VERB_KINDS: Record<keyof typeof CLAUSE_ERRORS, readonly TypeKind[]> = {
  d: ['int', 'uint'],
  f: ['double', 'string'],
  e: ['double', 'string'],
  b: ['int', 'uint', 'bool'],
  x: ['int', 'uint', 'string', 'bytes'],
  X: ['int', 'uint', 'string', 'bytes'],
  o: ['int', 'uint'],
};
const STRING_KINDS: readonly TypeKind[] = [
  'list',
  'map',
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'timestamp',
  'bytes',
  'duration',
  'type',
  'null_type',
];

const kindIn = (t: Type | undefined, kinds: readonly TypeKind[]): boolean =>
  t === undefined || t.kind === 'dyn' || kinds.includes(t.kind);

/** %s's check: the argument, and each member of a list or map literal, of a kind %s prints; else the first that is not. */
function unprintable(ast: CheckedAst, e: Expr): Expr | undefined {
  if (!kindIn(ast.typeMap.get(e.id), STRING_KINDS)) return e;
  for (const sub of e.kind === 'list' || (e.kind === 'struct' && e.messageName === '') ? subExpressions(e) : []) {
    const bad = unprintable(ast, sub);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/** The error a clause's static check finds in its argument (the runtime's text, at the argument). */
function clauseError(ast: CheckedAst, c: Clause, arg: Expr): FormatError | undefined {
  const typeNameOf = (e: Expr): string => ast.typeMap.get(e.id)?.name ?? 'dyn';
  if (c.verb === 's') {
    const bad = unprintable(ast, arg);
    return bad === undefined ? undefined : new FormatError(STRING_CLAUSE_ERROR(typeNameOf(bad)), bad.id);
  }
  if (kindIn(ast.typeMap.get(arg.id), VERB_KINDS[c.verb])) return undefined;
  return new FormatError(CLAUSE_ERRORS[c.verb](typeNameOf(arg)), arg.id);
}

/** A call cel-go checks: `'<literal>'.format([<list literal>])` bound to the strings library's overload. */
function formatCall(ast: CheckedAst, e: Expr): { f: string; args: readonly Expr[]; id: number } | undefined {
  if (e.kind !== 'call' || e.function !== 'format' || e.target === undefined || e.args.length !== 1) return undefined;
  const ids = ast.referenceMap.get(e.id)?.overloadIds ?? [];
  if (ids.length > 0 && !ids.includes('string_format')) return undefined;
  const t = e.target;
  const list = e.args[0]!;
  if (t.kind !== 'constant' || t.value.kind !== 'string' || list.kind !== 'list') return undefined;
  return { f: t.value.value, args: list.elements, id: e.id };
}

/**
 * cel-go's stringFormatValidator, which the strings library adds: a literal format string with a
 * list literal of arguments is parsed and each clause checked against its argument's type; too
 * many arguments are an error too. It exempts format()'s arguments from the homogeneity check.
 */
export const FORMAT_VALIDATOR: AstValidator = {
  exemptFunctions: ['format'],
  validate(ast, nodes, report) {
    for (const { expr: e } of nodes) {
      const call = formatCall(ast, e);
      if (call === undefined) continue;
      let requested = 0;
      try {
        interpolate(
          call.f,
          call.args.length,
          (i) => {
            requested = i + 1;
          },
          (c) => (i) => {
            const err = clauseError(ast, c, call.args[i]!);
            if (err !== undefined) throw err;
            return '';
          },
        );
      } catch (err) {
        if (!(err instanceof FormatError)) throw err;
        report(err.exprId ?? call.id, err.message);
        continue;
      }
      if (call.args.length > requested)
        report(
          call.id,
          `too many arguments supplied to string.format (expected ${requested}, got ${call.args.length})`,
        );
    }
  },
};
