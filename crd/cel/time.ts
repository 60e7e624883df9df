// Timestamps and durations as cel-go (Kubernetes' CEL) has them, where the engine's differ:
//   - timestamp(string) takes strict RFC 3339 only (the engine hands the string to JS Date, which
//     also takes '2009-02-30', '24:00:00', a space for 'T', RFC 2822 dates);
//   - duration(string) follows Go's time.ParseDuration ('0', '.5s', 'µs') and errors out of range;
//   - the timestamp getters take a numeric UTC offset ('+11:00', '-02:30') as well as a zone name;
//   - string() and identity conversions of timestamps and durations, which the engine lacks.
// Engine values: timestamp = JS Date (millisecond precision), duration = Duration (seconds and
// nanos, either sign; normalised here so both carry the sign of the whole).
//
// The engine's `timestamp`, `duration` and getter calls are renamed in the parsed AST to the
// k8s_ overloads below (env.ts prepareAst, `timeRenames`); timestamp/duration arithmetic stays the
// engine's (its operators cannot be re-registered).
import type { Environment } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { checkRange } from './core.js';
import { goShortest } from '../../cel/kube/gofmt.js';
import { daysIn } from '../../apimachinery/validation/go-time.js';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

/** Seconds from the Unix epoch of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z (cel-go minUnixTime/maxUnixTime). */
const MIN_UNIX_SECONDS = -62135596800;
const MAX_UNIX_SECONDS = 253402300799;
const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MILLI = 1_000_000n;
const NANOS_PER_MINUTE = 60n * NANOS_PER_SECOND;
const NANOS_PER_HOUR = 60n * NANOS_PER_MINUTE;

const GETTERS = [
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
] as const;

/** Engine built-ins this library replaces (call name → our overloads' name). */
export const timeRenames: Record<string, string> = Object.fromEntries(
  [...GETTERS, 'timestamp', 'duration'].map((n) => [n, `k8s_${n}`]),
);

// ---------------------------------------------------------------------------------------------
// Durations

/** A duration as signed nanoseconds (the engine's Duration may carry nanos of either sign). */
export function durationNanos(d: Duration): bigint {
  return d.seconds * NANOS_PER_SECOND + BigInt(d.nanos);
}

/** A Duration of `n` nanoseconds, seconds and nanos of the same sign (as protobuf's Duration). */
export function durationOf(n: bigint): Duration {
  return new Duration(n / NANOS_PER_SECOND, Number(n % NANOS_PER_SECOND));
}

const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n, // µ, MICRO SIGN
  '\u03bcs': 1_000n, // μ, GREEK SMALL LETTER MU
  ms: NANOS_PER_MILLI,
  s: NANOS_PER_SECOND,
  m: NANOS_PER_MINUTE,
  h: NANOS_PER_HOUR,
};

/** One `[0-9]*(.[0-9]*)?unit` element of a Go duration; the unit runs to the next digit or '.'. */
const DURATION_ELEMENT = /(\d*)(?:\.(\d*))?([^\d.]*)/y;

/**
 * duration(string): Go's time.ParseDuration grammar ("1h30m", "-1.5s", "300ms", "0"), computed
 * exactly in bigint, then held to CEL's range. Error texts are cel-go's.
 */
export function parseDuration(orig: string): Duration {
  const invalid = (): Error => new Error(`type conversion error from 'string' to '${DUR}'`);
  let s = orig;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return new Duration(0n, 0);
  if (s === '') throw invalid();
  let total = 0n;
  DURATION_ELEMENT.lastIndex = 0;
  while (DURATION_ELEMENT.lastIndex < s.length) {
    const m = DURATION_ELEMENT.exec(s);
    const [, int = '', frac, unit = ''] = m ?? [];
    if (!m || (int === '' && !frac)) throw invalid();
    const scale = UNIT_NANOS[unit];
    if (scale === undefined) throw invalid();
    // Anything this long is out of range whatever its unit; don't build huge bigints for it.
    if (int.replace(/^0+/, '').length > 24) throw new Error('duration out of range');
    total += BigInt(int || '0') * scale;
    if (frac) {
      // Go stops reading fraction digits past int64's precision; 18 are finer than 1ns for 'h'.
      const f = frac.slice(0, 18);
      total += (BigInt(f) * scale) / 10n ** BigInt(f.length);
    }
  }
  const d = durationOf(neg ? -total : total);
  checkRange(d);
  return d;
}

/** string(duration): seconds as cel-go prints them, FormatFloat(d.Seconds(), 'f', -1, 64) + "s". */
export function durationString(d: Duration): string {
  const n = durationNanos(d);
  // time.Duration.Seconds(): whole seconds plus the remainder, in float64.
  const seconds = Number(n / NANOS_PER_SECOND) + Number(n % NANOS_PER_SECOND) / 1e9;
  return `${goShortest(seconds)}s`;
}

// ---------------------------------------------------------------------------------------------
// Timestamps

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch of a UTC date-time; years 0-99 are not shifted to 19xx as Date.UTC does. */
function utcMillis(year: number, month: number, day: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(h, mi, s, ms);
  return d.getTime();
}

/**
 * timestamp(string): RFC 3339 as cel-go takes it (its strict gate, then Go's time.Parse): 'T' and
 * 'Z' upper case, two-digit fields, seconds 0-59, an offset within ±23:59, a real calendar day,
 * and the instant within years 1-9999. Fractions below a millisecond are dropped (JS Date).
 */
export function parseTimestamp(s: string): Date {
  const m = RFC3339.exec(s);
  const [, y, mo, d, h, mi, sec, frac = '', sign, oh, om] = m ?? [];
  const n = (x: string | undefined): number => Number(x ?? 0);
  if (
    !m ||
    n(mo) < 1 ||
    n(mo) > 12 ||
    n(d) < 1 ||
    n(d) > 31 ||
    n(h) > 23 ||
    n(mi) > 59 ||
    n(sec) > 59 ||
    n(oh) > 23 ||
    n(om) > 59
  ) {
    throw new Error(`invalid RFC 3339 timestamp ${JSON.stringify(s)}`);
  }
  const year = n(y);
  const month = n(mo);
  // Go's time.Parse rejects a day the month does not have ('2009-02-30').
  if (n(d) > daysIn(month, year)) throw new Error(`type conversion error from 'string' to '${TS}'`);
  const offsetMinutes = sign ? (sign === '-' ? -1 : 1) * (n(oh) * 60 + n(om)) : 0;
  const ms =
    utcMillis(year, month, n(d), n(h), n(mi), n(sec), n(frac.slice(0, 3).padEnd(3, '0'))) - offsetMinutes * 60_000;
  const unix = Math.floor(ms / 1000);
  if (unix < MIN_UNIX_SECONDS || unix > MAX_UNIX_SECONDS) throw new Error('timestamp overflow');
  return new Date(ms);
}

/** string(timestamp): Go's time.RFC3339Nano in UTC, the fraction's trailing zeros dropped. */
export function timestampString(t: Date): string {
  return t.toISOString().replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}

// ---------------------------------------------------------------------------------------------
// Time zones

/** Go's strconv.Atoi: an optional sign and decimal digits. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  return Number(s);
}

/**
 * cel-go's numeric zone: "[+-]HH:MM" (the sign optional), hours within ±23, minutes 0-59; the
 * sign of the text applies to the minutes too ('-00:30' is half an hour west).
 */
function fixedOffsetMs(tz: string, colon: number): number {
  const hours = atoi(tz.slice(0, colon));
  const minutes = atoi(tz.slice(colon + 1));
  if (minutes < 0 || minutes > 59) throw new Error(`timezone offset minutes out of range [0, 59]: ${tz}`);
  if (hours < -23 || hours > 23) throw new Error(`timezone offset hours out of range [-23, 23]: ${tz}`);
  return (tz[0] === '-' ? hours * 60 - minutes : hours * 60 + minutes) * 60_000;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** A formatter printing the UTC offset of IANA zone `tz`, or cel-go's error for an unknown zone. */
function zoneFormat(tz: string): Intl.DateTimeFormat {
  const cached = zoneFormats.get(tz);
  if (cached) return cached;
  const unknown = new Error(`unknown time zone ${tz}`);
  // Go's time.LoadLocation reads zoneinfo files: names begin with a letter and match case-sensitively
  // ('america/los_angeles' fails in kube), where Intl ignores case.
  if (!/^[A-Za-z]/.test(tz)) throw unknown;
  let f: Intl.DateTimeFormat;
  try {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
  } catch {
    throw unknown;
  }
  const resolved = f.resolvedOptions().timeZone;
  if (resolved !== tz && resolved.toLowerCase() === tz.toLowerCase()) throw unknown;
  if (zoneFormats.size >= 200) zoneFormats.clear();
  zoneFormats.set(tz, f);
  return f;
}

/** The offset of zone `tz` at instant `ms`, e.g. "GMT-07:52:58" for Los Angeles before 1883. */
function namedOffsetMs(tz: string, ms: number): number {
  const name = zoneFormat(tz)
    .formatToParts(new Date(ms))
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /^GMT(?:([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?)?$/.exec(name ?? '');
  if (!m) throw new Error(`unknown time zone ${tz}`);
  const seconds = Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return (m[1] === '-' ? -seconds : seconds) * 1000;
}

/** The server's zone, for 'Local'. */
let localZone: string | undefined;

/**
 * The UTC offset, in milliseconds, of the zone argument of a timestamp getter at instant `ms`, as
 * cel-go reads it: with a ':' a numeric offset, otherwise a zone name for time.LoadLocation
 * ('' and 'UTC' are UTC, 'Local' the server's zone).
 */
export function zoneOffsetMs(tz: string, ms: number): number {
  const colon = tz.indexOf(':');
  if (colon >= 0) return fixedOffsetMs(tz, colon);
  if (tz === '' || tz === 'UTC') return 0;
  return namedOffsetMs(tz === 'Local' ? (localZone ??= new Intl.DateTimeFormat().resolvedOptions().timeZone) : tz, ms);
}

/** A Date whose UTC fields are the wall-clock fields of `t` in zone `tz` (UTC without one). */
function wallClock(t: Date, tz?: string): Date {
  return tz === undefined ? t : new Date(t.getTime() + zoneOffsetMs(tz, t.getTime()));
}

const dayOfYear = (w: Date): number => Math.floor((w.getTime() - utcMillis(w.getUTCFullYear(), 1, 1)) / 86_400_000);

/** Each getter over a wall-clock Date; months and days of the year and month count from 0. */
const getterFields: Record<(typeof GETTERS)[number], (w: Date) => number> = {
  getFullYear: (w) => w.getUTCFullYear(),
  getMonth: (w) => w.getUTCMonth(),
  getDayOfYear: dayOfYear,
  getDayOfMonth: (w) => w.getUTCDate() - 1,
  getDate: (w) => w.getUTCDate(),
  getDayOfWeek: (w) => w.getUTCDay(),
  getHours: (w) => w.getUTCHours(),
  getMinutes: (w) => w.getUTCMinutes(),
  getSeconds: (w) => w.getUTCSeconds(),
  getMilliseconds: (w) => w.getUTCMilliseconds(),
};

// ---------------------------------------------------------------------------------------------
// Registration

type Fn = (...args: never[]) => unknown;

/** Registers the k8s_ overloads named in `timeRenames`, and string() of timestamps and durations. */
export function registerTimeLibrary(env: Environment): void {
  const fn = (sig: string, f: Fn): void => {
    env.registerFunction(sig, f as (...args: unknown[]) => unknown);
  };

  fn(`k8s_timestamp(string): ${TS}`, parseTimestamp);
  fn(`k8s_timestamp(int): ${TS}`, (i: bigint) => {
    if (i < BigInt(MIN_UNIX_SECONDS) || i > BigInt(MAX_UNIX_SECONDS)) throw new Error('timestamp overflow');
    return new Date(Number(i) * 1000);
  });
  fn(`k8s_timestamp(${TS}): ${TS}`, (t: Date) => t);
  fn(`k8s_duration(string): ${DUR}`, parseDuration);
  fn(`k8s_duration(${DUR}): ${DUR}`, (d: Duration) => d);
  // Missing from the engine, no clash: registered under their own names.
  fn(`string(${TS}): string`, timestampString);
  fn(`string(${DUR}): string`, durationString);

  for (const name of GETTERS) {
    const field = getterFields[name];
    fn(`${TS}.k8s_${name}(): int`, (t: Date) => BigInt(field(t)));
    fn(`${TS}.k8s_${name}(string): int`, (t: Date, tz: string) => BigInt(field(wallClock(t, tz))));
  }
  // Durations: totals, truncated toward zero, as cel-go (Go's Duration.Hours() ... Milliseconds()).
  // The CEL spec makes getMilliseconds() the component below the second; kube answers the total.
  fn(`${DUR}.k8s_getHours(): int`, (d: Duration) => durationNanos(d) / NANOS_PER_HOUR);
  fn(`${DUR}.k8s_getMinutes(): int`, (d: Duration) => durationNanos(d) / NANOS_PER_MINUTE);
  fn(`${DUR}.k8s_getSeconds(): int`, (d: Duration) => durationNanos(d) / NANOS_PER_SECOND);
  fn(`${DUR}.k8s_getMilliseconds(): int`, (d: Duration) => durationNanos(d) / NANOS_PER_MILLI);
}
