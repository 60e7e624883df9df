// Timestamps and durations as cel-go has them, exact to the nanosecond: timestamp(string) is
// RFC 3339 as Go's time.Parse takes it, duration(string) Go's time.ParseDuration, string() of
// each as cel-go prints it, arithmetic with cel-go's range errors, and the accessors with an
// optional zone (an IANA name through Intl, or a numeric "[+-]HH:MM" offset, as cel-go reads it).
import { CelError, Duration, MAX_INT64, MIN_INT64, Timestamp } from './values.js';
import { goQuote } from '../apimachinery/quote.js';
import { parseGoDuration } from '../apimachinery/go-duration.js';

const NS_PER_SECOND = 1_000_000_000n;
const NS_PER_MS = 1_000_000n;

/**
 * 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z in nanoseconds (cel-go's valid timestamp
 * range). The first is Go's zero time, a timestamp's zero value (time.Time.IsZero).
 */
export const MIN_TIMESTAMP_NS = -62135596800n * NS_PER_SECOND;
const MAX_TIMESTAMP_NS = 253402300799n * NS_PER_SECOND + NS_PER_SECOND - 1n;

const timestampOverflow = (): CelError => new CelError('timestamp overflow');
const durationOverflow = (): CelError => new CelError('duration overflow');

/** A timestamp of `ns`, or cel-go's overflow error outside years 1 to 9999. */
export const timestampOf = (ns: bigint): Timestamp | CelError =>
  ns < MIN_TIMESTAMP_NS || ns > MAX_TIMESTAMP_NS ? timestampOverflow() : new Timestamp(ns);
/** A duration of `ns`, or cel-go's overflow error outside int64 nanoseconds. */
export const durationOf = (ns: bigint): Duration | CelError =>
  ns < MIN_INT64 || ns > MAX_INT64 ? durationOverflow() : new Duration(ns);

// ---------------------------------------------------------------------------------------------
// Durations

/** duration(string) as Go's time.ParseDuration reads it ("1h1.5s", "-300ms", "0"), exactly. */
export function parseDuration(text: string): Duration | CelError {
  const ns = parseGoDuration(text);
  return typeof ns === 'string' ? new CelError(ns) : new Duration(ns);
}

/** Nanoseconds as decimal seconds, trailing zeros dropped ("1.5", "3600", "0.000000001"). */
function decimalSeconds(ns: bigint): string {
  const neg = ns < 0n;
  const a = neg ? -ns : ns;
  const whole = a / NS_PER_SECOND;
  const frac = (a % NS_PER_SECOND).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** string(duration): cel-go prints FormatFloat(d.Seconds(), 'f', -1, 64) + "s". */
export function durationString(d: Duration): string {
  // Seconds() is a float64: beyond 2^53 ns it is not exact, so print what the float holds (its
  // shortest digits, which String() writes in fixed notation at these magnitudes, as 'f' does).
  if (d.nanos > 1n << 53n || d.nanos < -(1n << 53n))
    return `${String(Number(d.nanos / NS_PER_SECOND) + Number(d.nanos % NS_PER_SECOND) / 1e9)}s`;
  return `${decimalSeconds(d.nanos)}s`;
}

// ---------------------------------------------------------------------------------------------
// Timestamps

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Milliseconds since the epoch of a UTC civil time; years below 100 are not moved to 19xx as Date.UTC moves them. */
function utcMillis(year: number, month: number, day: number, h = 0, mi = 0, s = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(h, mi, s, 0);
  return d.getTime();
}

/** timestamp(string): RFC 3339 as Go's time.Parse(time.RFC3339, s) takes it, within years 1 to 9999. */
export function parseTimestamp(s: string): Timestamp | CelError {
  const m = RFC3339.exec(s);
  const invalid = new CelError(`type conversion error from 'string' to 'google.protobuf.Timestamp'`);
  if (!m) return invalid;
  const [y, mo, d, h, mi, sec, oh, om] = [m[1], m[2], m[3], m[4], m[5], m[6], m[9], m[10]].map((x) =>
    Number(x ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 || oh > 23 || om > 59) return invalid;
  if (d > (mo === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[mo - 1]!)) return invalid;
  const offsetSeconds = m[8] === undefined ? 0 : (m[8] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  const seconds = BigInt(utcMillis(y, mo, d, h, mi, sec) / 1000 - offsetSeconds);
  const nanos = BigInt((m[7] ?? '').slice(0, 9).padEnd(9, '0'));
  return timestampOf(seconds * NS_PER_SECOND + nanos);
}

/** Floor division, for instants before the epoch. */
const floorDiv = (a: bigint, b: bigint): bigint => (a % b < 0n ? a / b - 1n : a / b);

/** Whole seconds since the epoch (int(timestamp)). */
export const unixSeconds = (t: Timestamp): bigint => floorDiv(t.nanos, NS_PER_SECOND);

/** string(timestamp): Go's time.RFC3339Nano in UTC, trailing zeros of the fraction dropped. */
export function timestampString(t: Timestamp): string {
  const secs = unixSeconds(t);
  const frac = (t.nanos - secs * NS_PER_SECOND).toString().padStart(9, '0').replace(/0+$/, '');
  const iso = new Date(Number(secs) * 1000).toISOString();
  // toISOString writes years past 9999 and before 0 with six digits and a sign; ours are 1-9999.
  return `${iso.slice(0, 19)}${frac ? `.${frac}` : ''}Z`;
}

// ---------------------------------------------------------------------------------------------
// Zones and accessors

const zoneFormats = new Map<string, Intl.DateTimeFormat>();
/** Formatters kept at most: zone names come from expressions, so the cache is bounded. */
const MAX_ZONE_FORMATS = 200;

function zoneFormat(tz: string): Intl.DateTimeFormat | undefined {
  let f = zoneFormats.get(tz);
  if (f !== undefined) return f;
  // Go's time.LoadLocation reads zoneinfo files, case-sensitively; Intl ignores case.
  if (!/^[A-Za-z]/.test(tz)) return undefined;
  try {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
  } catch {
    return undefined;
  }
  const resolved = f.resolvedOptions().timeZone;
  if (resolved !== tz && resolved.toLowerCase() === tz.toLowerCase()) return undefined;
  if (zoneFormats.size >= MAX_ZONE_FORMATS) zoneFormats.clear();
  zoneFormats.set(tz, f);
  return f;
}

/** Go's strconv.Atoi, its error text as cel-go reports it. */
function atoi(s: string): number | CelError {
  if (!/^[+-]?\d+$/.test(s)) return new CelError(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
  const v = BigInt(s);
  return v < MIN_INT64 || v > MAX_INT64
    ? new CelError(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`)
    : Number(v);
}

/**
 * The UTC offset in seconds of zone `tz` at instant `ms`, as cel-go's timeZone() reads the
 * argument (v0.23 to v0.26): with a ':', hours and minutes as Go's strconv.Atoi reads them, the
 * sign of the hours applying to the minutes, no range checked; else a name time.LoadLocation
 * knows ('' and 'UTC' are UTC).
 */
function zoneOffsetSeconds(tz: string, ms: number): number | CelError {
  const colon = tz.indexOf(':');
  if (colon >= 0) {
    const hours = atoi(tz.slice(0, colon));
    if (hours instanceof CelError) return hours;
    const minutes = atoi(tz.slice(colon + 1));
    if (minutes instanceof CelError) return minutes;
    return (tz.startsWith('-') ? hours * 60 - minutes : hours * 60 + minutes) * 60;
  }
  if (tz === '' || tz === 'UTC') return 0;
  const f = zoneFormat(tz);
  const name = f?.formatToParts(new Date(ms)).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const m = /^GMT(?:([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?)?$/.exec(name);
  if (m === null) return new CelError(`unknown time zone ${tz}`);
  const s = Number(m[2] ?? 0) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -s : s;
}

export type TimeField =
  | 'year'
  | 'month'
  | 'dayOfYear'
  | 'dayOfMonth'
  | 'date'
  | 'dayOfWeek'
  | 'hours'
  | 'minutes'
  | 'seconds'
  | 'milliseconds';

/** A civil field of a timestamp in zone `tz` (UTC when undefined); months and days of year and month count from 0. */
export function timestampField(t: Timestamp, field: TimeField, tz?: string): bigint | CelError {
  const secs = unixSeconds(t);
  const subNanos = t.nanos - secs * NS_PER_SECOND;
  const ms = Number(secs) * 1000;
  const offset = tz === undefined ? 0 : zoneOffsetSeconds(tz, ms);
  if (offset instanceof CelError) return offset;
  const w = new Date(ms + offset * 1000);
  switch (field) {
    case 'year':
      return BigInt(w.getUTCFullYear());
    case 'month':
      return BigInt(w.getUTCMonth());
    case 'dayOfYear':
      return BigInt(Math.floor((w.getTime() - utcMillis(w.getUTCFullYear(), 1, 1)) / 86_400_000));
    case 'dayOfMonth':
      return BigInt(w.getUTCDate() - 1);
    case 'date':
      return BigInt(w.getUTCDate());
    case 'dayOfWeek':
      return BigInt(w.getUTCDay());
    case 'hours':
      return BigInt(w.getUTCHours());
    case 'minutes':
      return BigInt(w.getUTCMinutes());
    case 'seconds':
      return BigInt(w.getUTCSeconds());
    case 'milliseconds':
      return subNanos / NS_PER_MS;
  }
}

/** A duration's total hours, minutes, seconds or milliseconds, truncated (Go's Duration.Hours() etc. as cel-go uses them). */
export function durationField(d: Duration, field: 'hours' | 'minutes' | 'seconds' | 'milliseconds'): bigint {
  const per = {
    hours: 3600n * NS_PER_SECOND,
    minutes: 60n * NS_PER_SECOND,
    seconds: NS_PER_SECOND,
    milliseconds: NS_PER_MS,
  }[field];
  return d.nanos / per;
}
