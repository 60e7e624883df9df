// metav1.MicroTime in JSON: time.Parse(RFC3339Micro) when decoded, which wants exactly six
// fractional digits, and written back in UTC with six digits. A malformed one fails decoding
// (kube's 400 "cannot be handled as a ..."), with Go's parse error as the text.
import { goRFC3339ParseError } from './go-time.js';

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';
const MICRO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})[.,](\d{6})(Z|[+-]\d{2}:\d{2})$/;

type MicroTimeResult = { ok: true; value: string } | { ok: false; error: string };

/**
 * Parses a MicroTime as kube's UnmarshalJSON does and gives it back as kube writes it (UTC,
 * microseconds). The error texts are Go's for the common mistakes (a missing or short fraction,
 * too many digits); other malformed values get time.Parse's RFC3339 text with the micro layout.
 */
export function parseMicroTime(value: string): MicroTimeResult {
  const quoted = JSON.stringify(value);
  const rfcError = goRFC3339ParseError(value);
  if (rfcError !== undefined) return { ok: false, error: rfcError.replace(`as "${RFC3339}"`, `as "${RFC3339_MICRO}"`) };
  const m = MICRO.exec(value);
  if (!m) {
    // Valid RFC3339, so the seconds end at byte 19: what follows is not exactly six digits.
    const rest = value.slice(19);
    const digits = /^[.,](\d*)/.exec(rest)?.[1] ?? '';
    const error =
      digits.length > 6
        ? `cannot parse ${JSON.stringify(rest.slice(7))} as "Z07:00"`
        : `cannot parse ${JSON.stringify(rest)} as ".000000"`;
    return { ok: false, error: `parsing time ${quoted} as "${RFC3339_MICRO}": ${error}` };
  }
  const [, base, micros, zone] = m;
  const seconds = new Date(`${base}${zone}`).toISOString().slice(0, 19);
  return { ok: true, value: `${seconds}.${micros}Z` };
}

/** Microseconds since the epoch: MicroTime needs more than Date's milliseconds. */
export type MicroClock = () => number;

/** metav1.MicroTime as kube writes it: UTC, six fractional digits. */
export function formatMicroTime(micros: number): string {
  const whole = Math.floor(micros / 1e6);
  const frac = String(Math.floor(micros) - whole * 1e6).padStart(6, '0');
  return `${new Date(whole * 1000).toISOString().slice(0, 19)}.${frac}Z`;
}

/** The inverse of formatMicroTime for the stored (canonical) form; undefined when unreadable. */
export function parseMicroTimeMicros(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})Z$/.exec(value);
  if (!m) return undefined;
  const seconds = Date.parse(`${m[1]}Z`);
  return Number.isNaN(seconds) ? undefined : seconds * 1000 + Number(m[2]);
}
