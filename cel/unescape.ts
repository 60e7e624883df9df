// String and bytes literals: cel-go's parser/unescape.go behaviour. The literal's text is
// decoded in UTF-8 bytes, as Go does: in a string every escape yields a code point (so `\xE9`
// is é), in bytes `\x` and octal escapes yield raw bytes and `\u` is refused.

export class UnescapeError extends Error {}

const SIMPLE: Record<string, number> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
  "'": 39,
  '"': 34,
  '`': 96,
  '?': 63,
};

function utf8(cp: number, out: number[]): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
}

/** Go's utf8.ValidRune: in range and not a surrogate. */
const validRune = (v: number): boolean => v >= 0 && v <= 0x10ffff && !(v >= 0xd800 && v <= 0xdfff);

/** A literal's text between its quotes (line breaks as \n), and whether it is raw (an r prefix). */
function literalBody(text: string): { value: string; raw: boolean } {
  let value = text.replaceAll('\r\n', '\n').replaceAll('\r', '\n');
  if ([...value].length < 2) throw new UnescapeError('unable to unescape string');
  let raw = false;
  if (value[0] === 'r' || value[0] === 'R') {
    value = value.slice(1);
    raw = true;
  }
  const q = value[0];
  if (value.length === 0 || q !== value[value.length - 1] || (q !== '"' && q !== "'"))
    throw new UnescapeError('unable to unescape string');
  if (value.length >= 6 && (value.startsWith("'''") || value.startsWith('"""'))) {
    const three = value.slice(0, 3);
    if (!value.endsWith(three)) throw new UnescapeError('unable to unescape string');
    value = `"${value.slice(3, value.length - 3)}"`;
  }
  return { value: value.slice(1, value.length - 1), raw };
}

/** The bytes a literal's text stands for (quotes and an r prefix included in `text`, a b prefix not). */
export function unescapeBytes(text: string, isBytes: boolean): Uint8Array {
  const { value, raw } = literalBody(text);
  const out: number[] = [];
  const cps = [...value].map((c) => c.codePointAt(0)!);
  if (raw || !value.includes('\\')) {
    for (const c of cps) utf8(c, out);
    return Uint8Array.from(out);
  }
  for (let i = 0; i < cps.length; ) i = unescapeChar(cps, i, isBytes, out);
  return Uint8Array.from(out);
}

const UTF8 = new TextDecoder();

/**
 * A string literal's value. Without an escape it is the text between the quotes (the lexer's
 * text holds no lone surrogate, so its UTF-8 would decode back to it); else unescapeBytes's
 * bytes decoded, invalid UTF-8 as U+FFFD.
 */
export function unescapeString(text: string): string {
  const { value, raw } = literalBody(text);
  return raw || !value.includes('\\') ? value : UTF8.decode(unescapeBytes(text, false));
}

/** One character or escape at i, appended to out; returns the index after it. */
function unescapeChar(s: readonly number[], i: number, isBytes: boolean, out: number[]): number {
  const c = s[i]!;
  if (c !== 0x5c) {
    utf8(c, out);
    return i + 1;
  }
  if (i + 1 >= s.length) throw new UnescapeError("unable to unescape string, found '\\' as last character");
  const e = String.fromCodePoint(s[i + 1]!);
  const simple = SIMPLE[e];
  if (simple !== undefined) {
    out.push(simple);
    return i + 2;
  }
  if (e === 'x' || e === 'X' || e === 'u' || e === 'U') {
    if (isBytes && (e === 'u' || e === 'U')) throw new UnescapeError('unable to unescape string');
    const n = e === 'u' ? 4 : e === 'U' ? 8 : 2;
    if (i + 2 + n > s.length) throw new UnescapeError('unable to unescape string');
    let v = 0;
    for (let j = 0; j < n; j++) {
      const d = hexValue(s[i + 2 + j]!);
      if (d < 0) throw new UnescapeError('unable to unescape string');
      v = v * 16 + d;
    }
    if (!isBytes && !validRune(v)) throw new UnescapeError('invalid unicode code point');
    if (isBytes) out.push(v);
    else utf8(v, out);
    return i + 2 + n;
  }
  if (e >= '0' && e <= '3') {
    if (i + 4 > s.length) throw new UnescapeError('unable to unescape octal sequence in string');
    let v = s[i + 1]! - 0x30;
    for (let j = 2; j < 4; j++) {
      const d = s[i + j]!;
      if (d < 0x30 || d > 0x37) throw new UnescapeError('unable to unescape octal sequence in string');
      v = v * 8 + (d - 0x30);
    }
    if (isBytes) out.push(v);
    else utf8(v, out);
    return i + 4;
  }
  throw new UnescapeError('unable to unescape string');
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}
