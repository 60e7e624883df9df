// Go's time.ParseDuration, exactly: the command line's durations (server/flags.ts) and CEL's
// duration(string) (cel/time.ts) are both read as Go reads them.

const NS_PER_SECOND = 1_000_000_000n;
const MAX_INT64 = 2n ** 63n - 1n;

/** A map, so that no unit is found on a prototype ("1constructor"). */
const UNIT_NS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', NS_PER_SECOND],
  ['m', 60n * NS_PER_SECOND],
  ['h', 3600n * NS_PER_SECOND],
]);

/** One element of a Go duration: digits, an optional fraction, and a unit running to the next digit or '.'. */
const ELEMENT = /(\d*)(?:\.(\d*))?([^\d.]*)/y;

/** A Go duration ("1h1.5s", "-300ms", "0") in nanoseconds, or the error text Go's time.ParseDuration gives. */
export function parseGoDuration(text: string): bigint | string {
  const simple = simpleDuration(text);
  if (simple !== undefined) return simple;
  const invalid = `time: invalid duration "${text}"`;
  let s = text;
  const neg = s.startsWith('-');
  if (neg || s.startsWith('+')) s = s.slice(1);
  if (s === '0') return 0n;
  if (s === '') return invalid;
  let total = 0n;
  ELEMENT.lastIndex = 0;
  while (ELEMENT.lastIndex < s.length) {
    const m = ELEMENT.exec(s);
    const [, whole = '', frac, unit = ''] = m ?? [];
    if (!m || (whole === '' && !frac)) return invalid;
    const scale = UNIT_NS.get(unit);
    if (scale === undefined)
      return unit === ''
        ? `time: missing unit in duration "${text}"`
        : `time: unknown unit "${unit}" in duration "${text}"`;
    // Longer digit runs overflow whatever the unit; stop before building huge bigints.
    if (whole.replace(/^0+/, '').length > 20) return invalid;
    total += BigInt(whole || '0') * scale;
    if (frac) {
      const f = frac.slice(0, 18);
      total += (BigInt(f) * scale) / 10n ** BigInt(f.length);
    }
    if (total > MAX_INT64 + (neg ? 1n : 0n)) return invalid;
  }
  return neg ? -total : total;
}

/**
 * The usual duration, up to 15 digits and a unit ("10s", "500ms"), without the general scan (CEL
 * rules parse their objects' durations on every write); undefined for any other.
 */
function simpleDuration(s: string): bigint | undefined {
  let n = 0;
  let i = 0;
  for (; i < s.length && i < 15; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    n = n * 10 + (c - 0x30);
  }
  if (i === 0) return undefined;
  const scale = UNIT_NS.get(s.slice(i));
  if (scale === undefined) return undefined;
  const total = BigInt(n) * scale;
  return total > MAX_INT64 ? undefined : total;
}
