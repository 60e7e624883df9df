// The implementations of the standard and optional libraries' overloads, by cel-go's overload
// ids (the ids stdlib.ts, optional.ts and comprehensions.ts declare, which the checker's
// reference map names). Each takes its arguments already evaluated and free of errors (the
// evaluator handles the non-strict operators itself) and returns a value or a CelError with
// cel-go's text. Which overload runs is the evaluator's choice (eval.ts): the checker's, or at
// run time by the argument types the declarations give.
import { RegexError, type RegexWork, regexMatches } from './regex.js';
import {
  durationField,
  MIN_TIMESTAMP_NS,
  durationOf,
  durationString,
  parseDuration,
  parseTimestamp,
  type TimeField,
  timestampField,
  timestampOf,
  timestampString,
  unixSeconds,
} from './time.js';
import {
  addLists,
  CelError,
  checkedInt,
  checkedUint,
  codePointLength,
  compare,
  countInt,
  Duration,
  equals,
  intOverflow,
  isMapKey,
  listContains,
  listTraits,
  MapValue,
  MAX_INT64,
  MAX_UINT64,
  MIN_INT64,
  OptionalValue,
  Timestamp,
  TypeValue,
  typeName,
  Uint,
  uintOverflow,
  type Val,
  type Value,
} from './values.js';

/** What a library function may ask of the evaluation running it. */
export interface CallContext {
  /** Adds cost to the evaluation's meter (throws when the limit is passed): for functions whose work grows with their input. */
  charge(cost: number): void;
  /** Charges regex work to the evaluation's regex budget before it is done (throws past it): handed to cel/regex.ts. */
  readonly regexWork: RegexWork;
}

export type Impl = (args: readonly Value[], ctx: CallContext) => Val;

/** A context that meters nothing: for calls made outside an evaluation (folding a literal, a library's own helper calls). */
export const UNMETERED: CallContext = { charge: () => undefined, regexWork: () => undefined };

// ---------------------------------------------------------------------------------------------
// Arithmetic

const int = (v: Value): bigint => v as bigint;
const uint = (v: Value): bigint => (v as Uint).value;
const dbl = (v: Value): number => v as number;

function divideInt(a: bigint, b: bigint): Val {
  if (b === 0n) return new CelError('division by zero');
  // The one int64 quotient out of range: MIN / -1.
  return checkedInt(a / b);
}

function moduloInt(a: bigint, b: bigint): Val {
  if (b === 0n) return new CelError('modulus by zero');
  return a % b;
}

/** Go's strconv.FormatFloat(d, 'g', -1, 64), which cel-go's %g printing of doubles amounts to. */
function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return '+Inf';
  if (d === -Infinity) return '-Inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const [mant, expText] = d.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  // Shortest digits in fixed notation.
  const neg = d < 0;
  const digits = mant.replace(/^-/, '').replace('.', '');
  let out: string;
  if (exp < 0) out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  else if (digits.length <= exp + 1) out = digits + '0'.repeat(exp + 1 - digits.length);
  else out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  return neg ? `-${out}` : out;
}

// ---------------------------------------------------------------------------------------------
// Conversions

/** Go's float64 → int64 check as cel-go has it: NaN, infinities and values at or past ±2^63 overflow. */
function doubleToInt(d: number): Val {
  if (!Number.isFinite(d) || d <= -(2 ** 63) || d >= 2 ** 63) return intOverflow();
  return BigInt(Math.trunc(d));
}

function doubleToUint(d: number): Val {
  if (!Number.isFinite(d) || d < 0 || d >= 2 ** 64) return uintOverflow();
  return new Uint(BigInt(Math.trunc(d)));
}

/**
 * cel-go's String.ConvertToType: a string Go's strconv (or time) cannot parse is this error, whatever
 * the parser said ('type' as cel-go names the target: int, uint, double, bool,
 * google.protobuf.Duration).
 */
const conversionError = (type: string): CelError => new CelError(`type conversion error from 'string' to '${type}'`);

/** Go's strconv.ParseInt(s, 10, 64). */
function stringToInt(s: string): Val {
  if (!/^[+-]?\d+$/.test(s)) return conversionError('int');
  const v = BigInt(s);
  return v < MIN_INT64 || v > MAX_INT64 ? conversionError('int') : v;
}

/** Go's strconv.ParseUint(s, 10, 64): no sign. */
function stringToUint(s: string): Val {
  if (!/^\d+$/.test(s)) return conversionError('uint');
  const v = BigInt(s);
  return v > MAX_UINT64 ? conversionError('uint') : new Uint(v);
}

/** Go's strconv.ParseFloat(s, 64) for decimal text (infinities and NaN by name, any case). */
function stringToDouble(s: string): Val {
  const t = s.replace(/_/g, '');
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return conversionError('double');
  const v = Number(s);
  return Number.isFinite(v) ? v : conversionError('double');
}

/** Go's strconv.ParseBool, which cel-go's bool(string) is. */
const BOOL_TEXT: Readonly<Record<string, boolean>> = {
  1: true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  0: false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false,
};

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function bytesToString(b: Uint8Array): Val {
  try {
    return strictUtf8.decode(b);
  } catch {
    return new CelError('invalid UTF-8 in bytes, cannot convert to string');
  }
}

// ---------------------------------------------------------------------------------------------
// Regular expressions: RE2 semantics always, through the project's bounded compile and cache
// (cel/regex.ts).

function matches(s: string, pattern: string, work: RegexWork): Val {
  try {
    return regexMatches(s, pattern, work);
  } catch (e) {
    if (e instanceof RegexError) return new CelError(e.message);
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Optionals and maps

/**
 * cel-go's traits.Zeroer: a value its type's zero value says it is. A list or map of its own
 * (kube's schema-typed ones) is none, and a timestamp's zero is Go's zero time, year 1.
 */
function optionalOfNonZero(v: Value): OptionalValue {
  const zero =
    v === null ||
    v === false ||
    v === 0n ||
    v === 0 ||
    v === '' ||
    (v instanceof Uint && v.value === 0n) ||
    (v instanceof Uint8Array && v.length === 0) ||
    (Array.isArray(v) && v.length === 0 && listTraits(v) === undefined) ||
    (v instanceof MapValue && v.isZeroValue()) ||
    (v instanceof Timestamp && v.nanos === MIN_TIMESTAMP_NS) ||
    (v instanceof Duration && v.nanos === 0n);
  return zero ? OptionalValue.NONE : OptionalValue.of(v);
}

function mapInsert(m: MapValue, k: Value, v: Value): Val {
  if (!isMapKey(k)) return new CelError(`unsupported key type: ${typeName(k)}`);
  if (m.has(k)) return new CelError(`insert failed: key ${String(k instanceof Uint ? k.value : k)} already exists`);
  const out = m.copy();
  out.set(k, v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The table

const time = (f: TimeField): [Impl, Impl] => [
  (a) => timestampField(a[0] as Timestamp, f),
  (a) => timestampField(a[0] as Timestamp, f, a[1] as string),
];

const relation = (prefix: string, test: (c: number) => boolean): [string, Impl][] =>
  [
    'bool',
    'int64',
    'int64_double',
    'int64_uint64',
    'uint64',
    'uint64_double',
    'uint64_int64',
    'double',
    'double_int64',
    'double_uint64',
    'string',
    'bytes',
    'timestamp',
    'duration',
  ].map((s) => [
    `${prefix}_${s}`,
    (a) => {
      const c = compare(a[0]!, a[1]!);
      // The overloads' types admit only comparable pairs: undefined is NaN, which cel-go refuses to order.
      return c === undefined ? new CelError('NaN values cannot be ordered') : test(c);
    },
  ]);

const timeAccessors = (
  name: string,
  f: TimeField,
  tz: string,
  duration?: 'hours' | 'minutes' | 'seconds' | 'milliseconds',
): [string, Impl][] => {
  const [plain, zoned] = time(f);
  const out: [string, Impl][] = [
    [name, plain],
    [tz, zoned],
  ];
  if (duration !== undefined) out.push([`duration_to_${duration}`, (a) => durationField(a[0] as Duration, duration)]);
  return out;
};

/** The standard, optional and two-variable-comprehension overloads, by id. */
export const STANDARD_IMPLS: ReadonlyMap<string, Impl> = new Map<string, Impl>([
  ['logical_not', (a) => !a[0]],
  ['equals', (a) => equals(a[0]!, a[1]!)],
  ['not_equals', (a) => equals(a[0]!, a[1]!) !== true],

  ['add_int64', (a) => checkedInt(int(a[0]!) + int(a[1]!))],
  ['add_uint64', (a) => checkedUint(uint(a[0]!) + uint(a[1]!))],
  ['add_double', (a) => dbl(a[0]!) + dbl(a[1]!)],
  ['add_string', (a) => (a[0] as string) + (a[1] as string)],
  ['add_bytes', (a) => new Uint8Array([...(a[0] as Uint8Array), ...(a[1] as Uint8Array)])],
  ['add_list', (a) => addLists(a[0] as readonly Value[], a[1] as readonly Value[])],
  ['add_duration_duration', (a) => durationOf((a[0] as Duration).nanos + (a[1] as Duration).nanos)],
  ['add_timestamp_duration', (a) => timestampOf((a[0] as Timestamp).nanos + (a[1] as Duration).nanos)],
  ['add_duration_timestamp', (a) => timestampOf((a[1] as Timestamp).nanos + (a[0] as Duration).nanos)],
  ['subtract_int64', (a) => checkedInt(int(a[0]!) - int(a[1]!))],
  ['subtract_uint64', (a) => checkedUint(uint(a[0]!) - uint(a[1]!))],
  ['subtract_double', (a) => dbl(a[0]!) - dbl(a[1]!)],
  ['subtract_duration_duration', (a) => durationOf((a[0] as Duration).nanos - (a[1] as Duration).nanos)],
  ['subtract_timestamp_duration', (a) => timestampOf((a[0] as Timestamp).nanos - (a[1] as Duration).nanos)],
  ['subtract_timestamp_timestamp', (a) => durationOf((a[0] as Timestamp).nanos - (a[1] as Timestamp).nanos)],
  ['multiply_int64', (a) => checkedInt(int(a[0]!) * int(a[1]!))],
  ['multiply_uint64', (a) => checkedUint(uint(a[0]!) * uint(a[1]!))],
  ['multiply_double', (a) => dbl(a[0]!) * dbl(a[1]!)],
  ['divide_int64', (a) => divideInt(int(a[0]!), int(a[1]!))],
  [
    'divide_uint64',
    (a) => (uint(a[1]!) === 0n ? new CelError('division by zero') : new Uint(uint(a[0]!) / uint(a[1]!))),
  ],
  ['divide_double', (a) => dbl(a[0]!) / dbl(a[1]!)],
  ['modulo_int64', (a) => moduloInt(int(a[0]!), int(a[1]!))],
  [
    'modulo_uint64',
    (a) => (uint(a[1]!) === 0n ? new CelError('modulus by zero') : new Uint(uint(a[0]!) % uint(a[1]!))),
  ],
  ['negate_int64', (a) => checkedInt(-int(a[0]!))],
  ['negate_double', (a) => -dbl(a[0]!)],

  ...relation('less', (c) => c < 0),
  ...relation('less_equals', (c) => c <= 0),
  ...relation('greater', (c) => c > 0),
  ...relation('greater_equals', (c) => c >= 0),

  ['in_list', (a) => listContains(a[1] as readonly Value[], a[0]!)],
  // A map's Contains: a key it finds, or the error finding it gave (kube's maps give some).
  [
    'in_map',
    (a) => {
      const v = (a[1] as MapValue).lookup(a[0]!);
      return v instanceof CelError ? v : v !== undefined;
    },
  ],

  ['size_string', (a) => countInt(codePointLength(a[0] as string))],
  ['string_size', (a) => countInt(codePointLength(a[0] as string))],
  ['size_bytes', (a) => countInt((a[0] as Uint8Array).length)],
  ['bytes_size', (a) => countInt((a[0] as Uint8Array).length)],
  ['size_list', (a) => countInt((a[0] as readonly Value[]).length)],
  ['list_size', (a) => countInt((a[0] as readonly Value[]).length)],
  ['size_map', (a) => countInt((a[0] as MapValue).size)],
  ['map_size', (a) => countInt((a[0] as MapValue).size)],

  ['type', (a) => TypeValue.of(typeName(a[0]!))],
  ['to_dyn', (a) => a[0]!],
  ['bool_to_bool', (a) => a[0]!],
  ['string_to_bool', (a) => BOOL_TEXT[a[0] as string] ?? conversionError('bool')],
  ['bytes_to_bytes', (a) => a[0]!],
  ['string_to_bytes', (a) => utf8.encode(a[0] as string)],
  ['double_to_double', (a) => a[0]!],
  ['int64_to_double', (a) => Number(int(a[0]!))],
  ['uint64_to_double', (a) => Number(uint(a[0]!))],
  ['string_to_double', (a) => stringToDouble(a[0] as string)],
  ['duration_to_duration', (a) => a[0]!],
  [
    'string_to_duration',
    (a) => {
      const d = parseDuration(a[0] as string);
      return d instanceof CelError ? conversionError('google.protobuf.Duration') : d;
    },
  ],
  ['int64_to_int64', (a) => a[0]!],
  ['double_to_int64', (a) => doubleToInt(dbl(a[0]!))],
  ['duration_to_int64', (a) => (a[0] as Duration).nanos],
  ['string_to_int64', (a) => stringToInt(a[0] as string)],
  ['timestamp_to_int64', (a) => unixSeconds(a[0] as Timestamp)],
  ['uint64_to_int64', (a) => (uint(a[0]!) > MAX_INT64 ? intOverflow() : uint(a[0]!))],
  ['string_to_string', (a) => a[0]!],
  ['bool_to_string', (a) => String(a[0])],
  ['bytes_to_string', (a) => bytesToString(a[0] as Uint8Array)],
  ['double_to_string', (a) => formatDouble(dbl(a[0]!))],
  ['duration_to_string', (a) => durationString(a[0] as Duration)],
  ['int64_to_string', (a) => int(a[0]!).toString()],
  ['timestamp_to_string', (a) => timestampString(a[0] as Timestamp)],
  ['uint64_to_string', (a) => uint(a[0]!).toString()],
  ['timestamp_to_timestamp', (a) => a[0]!],
  ['int64_to_timestamp', (a) => timestampOf(int(a[0]!) * 1_000_000_000n)],
  ['string_to_timestamp', (a) => parseTimestamp(a[0] as string)],
  ['uint64_to_uint64', (a) => a[0]!],
  ['double_to_uint64', (a) => doubleToUint(dbl(a[0]!))],
  ['int64_to_uint64', (a) => (int(a[0]!) < 0n ? uintOverflow() : new Uint(int(a[0]!)))],
  ['string_to_uint64', (a) => stringToUint(a[0] as string)],

  ['contains_string', (a) => (a[0] as string).includes(a[1] as string)],
  ['ends_with_string', (a) => (a[0] as string).endsWith(a[1] as string)],
  ['starts_with_string', (a) => (a[0] as string).startsWith(a[1] as string)],
  ['matches', (a, c) => matches(a[0] as string, a[1] as string, c.regexWork)],
  ['matches_string', (a, c) => matches(a[0] as string, a[1] as string, c.regexWork)],

  ...timeAccessors('timestamp_to_year', 'year', 'timestamp_to_year_with_tz'),
  ...timeAccessors('timestamp_to_month', 'month', 'timestamp_to_month_with_tz'),
  ...timeAccessors('timestamp_to_day_of_year', 'dayOfYear', 'timestamp_to_day_of_year_with_tz'),
  ...timeAccessors('timestamp_to_day_of_month', 'dayOfMonth', 'timestamp_to_day_of_month_with_tz'),
  ...timeAccessors('timestamp_to_day_of_month_1_based', 'date', 'timestamp_to_day_of_month_1_based_with_tz'),
  ...timeAccessors('timestamp_to_day_of_week', 'dayOfWeek', 'timestamp_to_day_of_week_with_tz'),
  ...timeAccessors('timestamp_to_hours', 'hours', 'timestamp_to_hours_with_tz', 'hours'),
  ...timeAccessors('timestamp_to_minutes', 'minutes', 'timestamp_to_minutes_with_tz', 'minutes'),
  ...timeAccessors('timestamp_to_seconds', 'seconds', 'timestamp_to_seconds_tz', 'seconds'),
  ...timeAccessors('timestamp_to_milliseconds', 'milliseconds', 'timestamp_to_milliseconds_with_tz', 'milliseconds'),

  ['optional_of', (a) => OptionalValue.of(a[0]!)],
  ['optional_ofNonZeroValue', (a) => optionalOfNonZero(a[0]!)],
  ['optional_none', () => OptionalValue.NONE],
  ['optional_value', (a) => (a[0] as OptionalValue).value ?? new CelError('optional.none() dereference')],
  ['optional_hasValue', (a) => (a[0] as OptionalValue).hasValue()],
  ['optional_or_optional', (a) => ((a[0] as OptionalValue).hasValue() ? a[0]! : a[1]!)],
  ['optional_orValue_value', (a) => (a[0] as OptionalValue).value ?? a[1]!],

  ['@mapInsert_map_key_value', (a) => mapInsert(a[0] as MapValue, a[1]!, a[2]!)],
  [
    '@mapInsert_map_map',
    (a) => {
      let out: Val = a[0]!;
      for (const [k, v] of (a[1] as MapValue).pairs()) {
        out = mapInsert(out as MapValue, k, v);
        if (out instanceof CelError) return out;
      }
      return out;
    },
  ],
]);
