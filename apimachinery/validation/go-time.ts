// Go's time.Parse(time.RFC3339, s), for its errors: metav1.Time's UnmarshalJSON parses ObjectMeta's
// timestamps with it while a request body is decoded, and kube answers a malformed one with a 400
// whose text is the *time.ParseError (`parsing time "yesterday" as "2006-01-02T15:04:05Z07:00":
// cannot parse "yesterday" as "2006"`). Go works on the UTF-8 bytes, and so does this.

const RFC3339 = '2006-01-02T15:04:05Z07:00';

type Std = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'tz';

/** time's nextStdChunk over RFC3339: each element's literal prefix, then the element. */
const CHUNKS: ReadonlyArray<{ prefix: string; std: Std; text: string }> = [
  { prefix: '', std: 'year', text: '2006' },
  { prefix: '-', std: 'month', text: '01' },
  { prefix: '-', std: 'day', text: '02' },
  { prefix: 'T', std: 'hour', text: '15' },
  { prefix: ':', std: 'minute', text: '04' },
  { prefix: ':', std: 'second', text: '05' },
  { prefix: '', std: 'tz', text: 'Z07:00' },
];

const HEX = '0123456789abcdef';

/** The time package's quote: `"` and `\` escaped, bytes of control and non-ASCII runes as \xNN. */
function goTimeQuote(b: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c >= 0x80 || c < 0x20) {
      // The whole rune's bytes (one byte where the UTF-8 is invalid), each as \xNN.
      const width = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      const end = Math.min(i + width, b.length);
      for (; i < end; i++) out += `\\x${HEX[b[i]! >> 4]}${HEX[b[i]! & 15]}`;
      continue;
    }
    if (c === 0x22 || c === 0x5c) out += '\\';
    out += String.fromCharCode(c);
    i++;
  }
  return `${out}"`;
}

const isDigit = (b: Uint8Array, i: number): boolean => i < b.length && b[i]! >= 0x30 && b[i]! <= 0x39;

/** time's getnum: one or two digits (exactly two when fixed); undefined where Go returns errBad. */
function getnum(b: Uint8Array, fixed: boolean): [number, Uint8Array] | undefined {
  if (!isDigit(b, 0)) return undefined;
  if (!isDigit(b, 1)) return fixed ? undefined : [b[0]! - 0x30, b.subarray(1)];
  return [(b[0]! - 0x30) * 10 + (b[1]! - 0x30), b.subarray(2)];
}

const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Go's time.daysIn: the days of `month` (1-12) in `year`, 29 for a leap year's February. */
export function daysIn(month: number, year: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN[month - 1]!;
}

/** The form metav1.Time writes (whole seconds, UTC): every timestamp the server stores. */
const METAV1_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z$/;

/** Whether `value` has metav1.Time's own form, each element in range: it parses. */
function parsesAsWritten(value: string): boolean {
  const m = METAV1_TIME.exec(value);
  if (!m) return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(month, Number(m[1])) &&
    Number(m[4]) < 24 &&
    Number(m[5]) < 60 &&
    Number(m[6]) < 60
  );
}

/** The message of Go's error for time.Parse(time.RFC3339, value), or undefined when it parses. */
export function goRFC3339ParseError(value: string): string | undefined {
  // Every write checks its object's timestamps (two per managedFields entry and more): the form
  // they are written in is recognized at once, and anything else walked as Go walks it.
  if (parsesAsWritten(value)) return undefined;
  const whole = Buffer.from(value, 'utf8');
  const quoted = goTimeQuote(whole);
  const cannotParse = (elem: Uint8Array, layoutElem: string): string =>
    `parsing time ${quoted} as ${goTimeQuote(Buffer.from(RFC3339))}: cannot parse ${goTimeQuote(elem)} as ${goTimeQuote(Buffer.from(layoutElem))}`;
  const outOfRange = (what: string): string => `parsing time ${quoted}: ${what} out of range`;

  let v: Uint8Array = whole;
  let year = 0;
  let month = -1;
  let day = -1;
  for (const { prefix, std, text } of CHUNKS) {
    for (let k = 0; k < prefix.length; k++) {
      if (v.length === 0 || v[0] !== prefix.charCodeAt(k)) return cannotParse(v, prefix);
      v = v.subarray(1);
    }
    const hold = v;
    let bad = false;
    let range = '';
    switch (std) {
      case 'year': {
        if (v.length < 4 || !isDigit(v, 0)) bad = true;
        else {
          const digits = v.subarray(0, 4);
          v = v.subarray(4);
          if (!digits.every((c) => c >= 0x30 && c <= 0x39)) bad = true;
          else year = Number(Buffer.from(digits).toString('latin1'));
        }
        break;
      }
      case 'month': {
        const n = getnum(v, true);
        if (!n) bad = true;
        else {
          [month, v] = n;
          if (month <= 0 || month > 12) range = 'month';
        }
        break;
      }
      case 'day': {
        const n = getnum(v, true);
        if (!n) bad = true;
        else [day, v] = n;
        break;
      }
      case 'hour':
      case 'minute': {
        const n = getnum(v, std === 'minute');
        if (!n) bad = true;
        else {
          v = n[1];
          if (n[0] >= (std === 'hour' ? 24 : 60)) range = std;
        }
        break;
      }
      case 'second': {
        const n = getnum(v, true);
        if (!n) {
          bad = true;
          break;
        }
        v = n[1];
        if (n[0] >= 60) {
          range = 'second';
          break;
        }
        // A fraction the layout does not name is still accepted after the seconds.
        if (v.length >= 2 && (v[0] === 0x2e || v[0] === 0x2c) && isDigit(v, 1)) {
          let end = 2;
          while (isDigit(v, end)) end++;
          v = v.subarray(end);
        }
        break;
      }
      case 'tz': {
        if (v.length >= 1 && v[0] === 0x5a) {
          v = v.subarray(1);
          break;
        }
        if (v.length < 6 || v[3] !== 0x3a) {
          bad = true;
          break;
        }
        const sign = v[0];
        const hr = getnum(v.subarray(1, 3), true);
        const mm = hr && getnum(v.subarray(4, 6), true);
        v = v.subarray(6);
        if (!hr || !mm) bad = true;
        // Go tests both, the minute last, with > (offsets of 24 hours or 60 minutes pass).
        if ((hr?.[0] ?? 0) > 24) range = 'time zone offset hour';
        if ((mm?.[0] ?? 0) > 60) range = 'time zone offset minute';
        if (sign !== 0x2b && sign !== 0x2d) bad = true;
        break;
      }
    }
    if (range) return outOfRange(range);
    if (bad) return cannotParse(hold, text);
  }
  if (v.length > 0) return `parsing time ${quoted}: extra text: ${goTimeQuote(v)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}
