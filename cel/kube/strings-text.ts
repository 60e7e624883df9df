// The strings extension's pure text functions, shared by cel/kube/strings.ts and the callers that
// trim a message as kube does (Go's strings.TrimSpace): strings.quote() and trim() as cel-go has them.

const QUOTE_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/**
 * cel-go's strings.quote: the string in double quotes with CEL's escapes for \a \b \f \n \r \t
 * \v \\ and ", everything else as is. A lone surrogate (JS's counterpart of Go's invalid UTF-8)
 * becomes U+FFFD, as cel-go replaces invalid runes.
 */
export function quote(s: string): string {
  return `"${s.replace(/[\x07\b\f\n\r\t\v\\"]|[\ud800-\udfff]/gu, (c) => QUOTE_ESCAPES[c] ?? '\ufffd')}"`;
}

/** Go's unicode.IsSpace: the Unicode White_Space property (no zero-width spaces, no BOM, no U+180E). */
function isSpace(c: number): boolean {
  switch (c) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200a;
  }
}

/** cel-go's trim(): Go's strings.TrimSpace. (White_Space holds only BMP characters, so UTF-16 units suffice.) */
export function trim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isSpace(s.charCodeAt(start))) start++;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}
