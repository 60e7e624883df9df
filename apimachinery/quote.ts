// Go's strconv.Quote (what %q prints), the one quoting kube's messages use: field errors, strconv's
// NumError, CEL's format(). Printable characters as they are, Go's escapes for the C controls,
// \xNN for other ASCII controls, \uNNNN or \UNNNNNNNN for other non-printables.

let printable: RegExp | undefined;

/**
 * Go's unicode.IsPrint for one character: categories L, M, N, P, S, and the ASCII space. The
 * expression is made on first use: V8 builds its Unicode property sets when it is created, about
 * 1 ms of a start that never asks.
 */
export const isGoPrintable = (ch: string): boolean => (printable ??= /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u).test(ch);
const GO_ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };
const hexDigits = (c: number, width: number): string => c.toString(16).padStart(width, '0');

/** One rune as strconv.Quote writes it. */
function quoteRune(c: number): string {
  const ch = String.fromCodePoint(c);
  if (ch === '"' || ch === '\\') return `\\${ch}`;
  if (isGoPrintable(ch)) return ch;
  if (GO_ESCAPES[c] !== undefined) return GO_ESCAPES[c];
  if (c < 0x20 || c === 0x7f) return `\\x${hexDigits(c, 2)}`;
  if (c < 0x10000) return `\\u${hexDigits(c, 4)}`;
  return `\\U${hexDigits(c, 8)}`;
}

/** Printable ASCII but `"` and `\`: what strconv.Quote writes as it is. */
const PLAIN_ASCII = /^[ !#-[\]-~]*$/;

/** A lone surrogate (JS's counterpart of a string Go would hold as U+FFFD) prints as U+FFFD. */
export function goQuote(s: string): string {
  // Most quoted text is field names and paths: one test instead of a regex per rune (200,000
  // unknown fields are quoted for fieldValidation's errors).
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    out += c >= 0xd800 && c <= 0xdfff ? '\ufffd' : quoteRune(c);
  }
  return `${out}"`;
}

/** Go's strconv.Quote of bytes taken as a string: invalid UTF-8 as \x escapes. */
export function goQuoteBytes(b: Uint8Array): string {
  let out = '"';
  for (let i = 0; i < b.length; ) {
    const [r, n] = decodeRune(b, i);
    out += r < 0 ? `\\x${hexDigits(b[i]!, 2)}` : quoteRune(r);
    i += n;
  }
  return `${out}"`;
}

/** Go's utf8.DecodeRune: the rune and its width, or -1 and 1 for an invalid byte. */
function decodeRune(b: Uint8Array, i: number): [number, number] {
  const c = b[i]!;
  if (c < 0x80) return [c, 1];
  const need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
  if (need < 0 || i + need >= b.length) return [-1, 1];
  let r = c & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
  for (let k = 1; k <= need; k++) {
    const d = b[i + k]!;
    if ((d & 0xc0) !== 0x80) return [-1, 1];
    r = (r << 6) | (d & 0x3f);
  }
  const min = need === 1 ? 0x80 : need === 2 ? 0x800 : 0x10000;
  if (r < min || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) return [-1, 1];
  return [r, need + 1];
}
