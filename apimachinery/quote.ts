// Go's strconv.Quote (what %q prints), the one quoting kube's messages use: field errors, strconv's
// NumError, CEL's format(). Printable characters as they are, Go's escapes for the C controls,
// \xNN for other ASCII controls, \uNNNN or \UNNNNNNNN for other non-printables.

/** Go's unicode.IsPrint: categories L, M, N, P, S, and the ASCII space. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const GO_ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };
const hexDigits = (c: number, width: number): string => c.toString(16).padStart(width, '0');

/** A lone surrogate (JS's counterpart of a string Go would hold as U+FFFD) prints as U+FFFD. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else if (GO_PRINTABLE.test(ch)) out += ch;
    else if (GO_ESCAPES[c] !== undefined) out += GO_ESCAPES[c];
    else if (c < 0x20 || c === 0x7f) out += `\\x${hexDigits(c, 2)}`;
    else if (c < 0x10000) out += `\\u${hexDigits(c, 4)}`;
    else out += `\\U${hexDigits(c, 8)}`;
  }
  return `${out}"`;
}
