// The string formats kube-apiserver checks in custom resources, each judged as kube-openapi's strfmt
// registry judges it (which in turn leans on Go's net, net/url, net/mail and time packages).
//
// apiextensions-apiserver keeps a format only if it is in its supported set (formats.go,
// StripUnsupportedFormatsPostProcessorForVersion); any other format (int32, int64, float, double,
// int-or-string, made-up names ...) is stripped from the schema before validation and so ignored.
// Names are normalised by dropping dashes, as strfmt does ("date-time" is "datetime").
import type { RE2JS } from 're2js';
import { re2 } from '../re2.js';
import { parseGoRequestURI } from '../go-url.js';
import { daysIn } from './go-time.js';

export type FormatCheck = (value: string) => boolean;

/** A Go (RE2) pattern, compiled at its first match; matching never backtracks. */
function goRegexp(pattern: string): (s: string) => boolean {
  let re: RE2JS | undefined;
  return (s) => (re ??= re2().RE2JS.compile(pattern)).matcher(s).find();
}

/** A Go (RE2) pattern whose groups are read, compiled at first use. */
function goRegexpGroups(pattern: string): () => RE2JS {
  let re: RE2JS | undefined;
  return () => (re ??= re2().RE2JS.compile(pattern));
}

const utf8 = new TextEncoder();
const byteLength = (s: string): number => utf8.encode(s).length;

// ---------------------------------------------------------------------------------------------
// IP addresses

/** Go's net.ParseIPv4 before 1.17 (k8s.io/utils/net ParseIPSloppy): leading zeros allowed. */
function parseIPv4Sloppy(s: string): boolean {
  let i = 0;
  for (let part = 0; part < 4; part++) {
    if (i >= s.length) return false;
    if (part > 0) {
      if (s[i] !== '.') return false;
      i++;
    }
    let n = 0;
    const start = i;
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) {
      n = n * 10 + (s.charCodeAt(i) - 48);
      if (n >= 0xffffff) return false;
      i++;
    }
    if (i === start || n > 0xff) return false;
  }
  return i === s.length;
}

/** netip's IPv4 parser (Go >= 1.17 net.ParseIP): no leading zeros, at most 3 digits a field. */
function parseIPv4Strict(s: string): boolean {
  const fields = s.split('.');
  if (fields.length !== 4) return false;
  for (const f of fields) {
    if (!/^[0-9]{1,3}$/.test(f)) return false;
    if (f.length > 1 && f[0] === '0') return false;
    if (Number(f) > 255) return false;
  }
  return true;
}

const hexVal = (c: string): number => {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
};

/** The four bytes of a dotted IPv4 text, or null. */
function ipv4Bytes(s: string, strict: boolean): number[] | null {
  if (!(strict ? parseIPv4Strict(s) : parseIPv4Sloppy(s))) return null;
  return s.split('.').map((f) => Number(f));
}

/**
 * The 16 bytes of an IPv6 address with an optional trailing dotted IPv4 part, or null. `strict` is
 * Go >= 1.17 (netip: at most four hex digits a group, strict IPv4 tail); otherwise Go < 1.17 (any
 * number of digits up to 0xFFFF, sloppy tail).
 */
function parseIPv6(s: string, strict: boolean): number[] | null {
  const ip: number[] = new Array<number>(16).fill(0);
  let i = 0; // bytes filled
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return ip;
  }
  while (i < 16) {
    let off = 0;
    let n = 0;
    while (off < s.length && hexVal(s[off]!) >= 0) {
      n = n * 16 + hexVal(s[off]!);
      off++;
      if (strict ? off > 4 : n >= 0xffffff) return null;
    }
    if (off === 0 || n > 0xffff) return null;
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) return null;
      if (i + 4 > 16) return null;
      const v4 = ipv4Bytes(s, strict);
      if (!v4) return null;
      ip.splice(i, 4, ...v4);
      s = '';
      i += 4;
      break;
    }
    ip[i] = n >> 8;
    ip[i + 1] = n & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':' || s.length === 1) return null;
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return null;
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return null;
  if (i < 16) {
    if (ellipsis < 0) return null;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) ip[j] = 0;
  } else if (ellipsis >= 0) return null;
  return ip;
}

/** Go's (modern) net.ParseIP, no zone: 'v4' when To4() would succeed (IPv4, or IPv4-mapped IPv6). */
function parseIPStrict(s: string): 'v4' | 'v6' | null {
  for (const c of s) {
    if (c === '.') return parseIPv4Strict(s) ? 'v4' : null;
    if (c === ':') {
      const ip = parseIPv6(s, true);
      if (!ip) return null;
      const mapped = ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff;
      return mapped ? 'v4' : 'v6';
    }
  }
  return null;
}

/** k8s.io/utils/net.ParseIPSloppy (Go's net.ParseIP before 1.17). */
function parseIPSloppy(s: string): boolean {
  for (const c of s) {
    if (c === '.') return parseIPv4Sloppy(s);
    if (c === ':') return parseIPv6(s, false) !== null;
  }
  return false;
}

/** k8s.io/utils/net.ParseCIDRSloppy. */
function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const addr = s.slice(0, slash);
  const mask = s.slice(slash + 1);
  let bits = 32;
  let ok = parseIPv4Sloppy(addr);
  if (!ok) {
    bits = 128;
    ok = parseIPv6(addr, false) !== null;
  }
  if (!ok || !/^[0-9]+$/.test(mask)) return false;
  let n = 0;
  for (const c of mask) {
    n = n * 10 + Number(c);
    if (n >= 0xffffff) return false;
  }
  return n <= bits;
}

/** Go's net.ParseMAC. */
function isMAC(s: string): boolean {
  if (s.length < 14) return false;
  const xtoi2 = (t: string, sep: string): boolean => {
    if (t.length > 2 && t[2] !== sep) return false;
    return t.length >= 2 && hexVal(t[0]!) >= 0 && hexVal(t[1]!) >= 0;
  };
  if (s[2] === ':' || s[2] === '-') {
    if ((s.length + 1) % 3 !== 0) return false;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    for (let i = 0, x = 0; i < n; i++, x += 3) if (!xtoi2(s.slice(x), s[2])) return false;
    return true;
  }
  if (s[4] === '.') {
    if ((s.length + 1) % 5 !== 0) return false;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    for (let i = 0, x = 0; i < n; i += 2, x += 5) {
      if (!xtoi2(s.slice(x, x + 2), '\0')) return false;
      if (!xtoi2(s.slice(x + 2), '.')) return false;
    }
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// URI: Go's net/url.ParseRequestURI (govalidator.IsRequestURI)

const isRequestURI = (raw: string): boolean => parseGoRequestURI(raw).ok;

// ---------------------------------------------------------------------------------------------
// Email: Go's net/mail.ParseAddress, reduced to accept/reject

class AddrParser {
  constructor(public s: string) {}
  empty(): boolean {
    return this.s.length === 0;
  }
  peek(): string {
    return this.s[0]!;
  }
  consume(c: string): boolean {
    if (this.empty() || this.peek() !== c) return false;
    this.s = this.s.slice(1);
    return true;
  }
  skipSpace(): void {
    this.s = this.s.replace(/^[ \t]+/, '');
  }
  skipCFWS(): boolean {
    this.skipSpace();
    while (this.consume('(')) {
      if (!this.consumeComment()) return false;
      this.skipSpace();
    }
    return true;
  }
  consumeComment(): boolean {
    let depth = 1;
    while (!this.empty() && depth !== 0) {
      if (this.peek() === '\\' && this.s.length > 1) this.s = this.s.slice(1);
      else if (this.peek() === '(') depth++;
      else if (this.peek() === ')') depth--;
      this.s = this.s.slice(1);
    }
    return depth === 0;
  }
  consumeAtom(dot: boolean, permissive: boolean): string {
    let i = 0;
    for (const ch of this.s) {
      if (!isAtext(ch, dot, permissive)) break;
      i += ch.length;
    }
    if (i === 0) throw new Error('invalid string');
    const atom = this.s.slice(0, i);
    this.s = this.s.slice(i);
    if (!permissive && (atom.startsWith('.') || atom.includes('..') || atom.endsWith('.')))
      throw new Error('dot in atom');
    return atom;
  }
  consumeQuotedString(): string {
    let i = 1;
    let out = '';
    let escaped = false;
    for (;;) {
      const ch = this.s.codePointAt(i);
      if (ch === undefined) throw new Error('unclosed quoted-string');
      const c = String.fromCodePoint(ch);
      if (escaped) {
        if (!isVchar(c) && !isWSP(c)) throw new Error('bad character');
        out += c;
        escaped = false;
      } else if (isQtext(c) || isWSP(c)) out += c;
      else if (c === '"') break;
      else if (c === '\\') escaped = true;
      else throw new Error('bad character');
      i += c.length;
    }
    this.s = this.s.slice(i + 1);
    return out;
  }
  consumeDomainLiteral(): string {
    if (!this.consume('[')) throw new Error('missing [');
    let dtext = '';
    for (;;) {
      if (this.empty()) throw new Error('unclosed domain-literal');
      if (this.peek() === ']') break;
      const c = String.fromCodePoint(this.s.codePointAt(0)!);
      if (c === '[' || c === '\\' || !isVchar(c)) throw new Error('bad character');
      dtext += c;
      this.s = this.s.slice(c.length);
    }
    this.consume(']');
    if (dtext.startsWith('IPv6:')) {
      if (!parseIPStrict(dtext.slice(5))) throw new Error('invalid IPv6');
    } else if (parseIPStrict(dtext) !== 'v4') throw new Error('invalid IP');
    return `[${dtext}]`;
  }
  consumeAddrSpec(): string {
    const orig = this.s;
    try {
      this.skipSpace();
      if (this.empty()) throw new Error('no addr-spec');
      let local: string;
      if (this.peek() === '"') {
        local = this.consumeQuotedString();
        if (local === '') throw new Error('empty quoted-string');
      } else local = this.consumeAtom(true, false);
      if (!this.consume('@')) throw new Error('missing @');
      this.skipSpace();
      if (this.empty()) throw new Error('no domain');
      const domain = this.peek() === '[' ? this.consumeDomainLiteral() : this.consumeAtom(true, false);
      return `${local}@${domain}`;
    } catch (e) {
      this.s = orig;
      throw e;
    }
  }
  consumePhrase(): void {
    let words = 0;
    for (;;) {
      if (words > 0 && !this.skipCFWS()) throw new Error('misformatted parenthetical comment');
      this.skipSpace();
      if (this.empty()) break;
      try {
        if (this.peek() === '"') this.consumeQuotedString();
        else this.consumeAtom(true, true);
      } catch (e) {
        if (words === 0) throw e;
        break;
      }
      words++;
    }
    if (words === 0) throw new Error('missing word in phrase');
  }
  /** parseAddress: the number of addresses it yields. */
  parseAddress(handleGroup: boolean): number {
    this.skipSpace();
    if (this.empty()) throw new Error('no address');
    try {
      this.consumeAddrSpec();
      this.skipSpace();
      if (!this.empty() && this.peek() === '(') {
        this.consume('(');
        if (!this.consumeComment()) throw new Error('misformatted parenthetical comment');
      }
      return 1;
    } catch {
      // fall back to name-addr
    }
    if (this.peek() !== '<') this.consumePhrase();
    this.skipSpace();
    if (handleGroup && this.consume(':')) return this.consumeGroupList();
    if (!this.consume('<')) throw new Error('no angle-addr');
    this.consumeAddrSpec();
    if (!this.consume('>')) throw new Error('unclosed angle-addr');
    return 1;
  }
  consumeGroupList(): number {
    let n = 0;
    this.skipSpace();
    if (this.consume(';')) {
      if (!this.skipCFWS()) throw new Error('misformatted parenthetical comment');
      return 0;
    }
    for (;;) {
      this.skipSpace();
      n += this.parseAddress(false);
      if (!this.skipCFWS()) throw new Error('misformatted parenthetical comment');
      if (this.consume(';')) {
        if (!this.skipCFWS()) throw new Error('misformatted parenthetical comment');
        break;
      }
      if (!this.consume(',')) throw new Error('expected comma');
    }
    return n;
  }
}

const isVchar = (c: string): boolean => (c >= '!' && c <= '~') || c.codePointAt(0)! >= 0x80;
const isWSP = (c: string): boolean => c === ' ' || c === '\t';
const isQtext = (c: string): boolean => c !== '\\' && c !== '"' && isVchar(c);
function isAtext(c: string, dot: boolean, permissive: boolean): boolean {
  if (c === '.') return dot;
  if ('()[];@\\,'.includes(c)) return permissive;
  if ('<>":'.includes(c)) return false;
  return isVchar(c);
}

function isEmail(s: string): boolean {
  // Go works on UTF-8: a lone surrogate would be invalid UTF-8 there.
  if (/[\uD800-\uDFFF]/u.test(s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ''))) return false;
  const p = new AddrParser(s);
  try {
    const n = p.parseAddress(true);
    if (!p.skipCFWS() || !p.empty()) return false;
    return n === 1;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Dates and durations

/** time.Parse("2006-01-02", s). */
function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(month, year);
}

const rxDateTime = goRegexp('^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$');
const rxDateTimeGroups = goRegexpGroups('^([0-9]{2}):([0-9]{2}):([0-9]{2})');

/** strfmt.IsDateTime: split (lower-cased) at "t", a valid date, then the time pattern. */
function isDateTime(s: string): boolean {
  if (byteLength(s) < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const time = parts[1]!;
  if (!rxDateTime(time)) return false;
  const m = rxDateTimeGroups().matcher(time);
  if (!m.find()) return false;
  return m.group(1)! <= '23' && m.group(2)! <= '59' && m.group(3)! <= '59';
}

const NS = 1n;
const durationUnits: Record<string, bigint> = {
  ns: NS,
  us: 1000n,
  µs: 1000n, // U+00B5
  μs: 1000n, // U+03BC
  ms: 1000_000n,
  s: 1000_000_000n,
  m: 60n * 1000_000_000n,
  h: 3600n * 1000_000_000n,
};
const TWO63 = 1n << 63n;

/** Go's time.ParseDuration, accept/reject only. */
function goParseDuration(orig: string): boolean {
  let s = orig;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  if (s === '0') return true;
  if (s === '') return false;
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0]! >= '0' && s[0]! <= '9'))) return false;
    let i = 0;
    let v = 0n;
    while (i < s.length && s[i]! >= '0' && s[i]! <= '9') {
      if (v > TWO63 / 10n) return false;
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > TWO63) return false;
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s !== '' && s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (j < s.length && s[j]! >= '0' && s[j]! <= '9') {
        if (!overflow) {
          if (f > (TWO63 - 1n) / 10n) overflow = true;
          else {
            const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
            if (y > TWO63) overflow = true;
            else {
              f = y;
              scale *= 10;
            }
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return false;
    let u = 0;
    while (u < s.length && !(s[u] === '.' || (s[u]! >= '0' && s[u]! <= '9'))) u++;
    if (u === 0) return false;
    const unit = durationUnits[s.slice(0, u)];
    s = s.slice(u);
    if (unit === undefined) return false;
    if (v > TWO63 / unit) return false;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO63) return false;
    }
    d += v;
    if (d > TWO63) return false;
  }
  const neg = orig[0] === '-';
  return neg || d <= TWO63 - 1n;
}

const durationValidator = goRegexp('^\\s*(?:\\d+\\s*[A-Za-zµ]+\\s*)+$');
const durationMatcher = goRegexpGroups('((\\d+)\\s*([A-Za-zµ]+))');
const timeUnits = [
  ['ns', 'nano'],
  ['us', 'µs', 'micro'],
  ['ms', 'milli'],
  ['s', 'sec'],
  ['m', 'min'],
  ['h', 'hr', 'hour'],
  ['d', 'day'],
  ['w', 'wk', 'week'],
];

/** strfmt.ParseDuration: Go's durations, or a scala-like "3 days". */
function isDuration(s: string): boolean {
  if (goParseDuration(s)) return true;
  if (!durationValidator(s)) return false;
  let ok = false;
  const m = durationMatcher().matcher(s);
  while (m.find()) {
    const digits = m.group(2)!;
    if (BigInt(digits) > TWO63 - 1n) return false; // strconv.Atoi out of range
    const unit = m.group(3)!.trim().toLowerCase();
    for (const variants of timeUnits) {
      const last = variants.length - 1;
      variants.forEach((variant, i) => {
        if ((i === last && unit.startsWith(variant)) || variant.toLowerCase() === unit) ok = true;
      });
    }
  }
  return ok;
}

// ---------------------------------------------------------------------------------------------
// govalidator (kube-openapi's fork) and the rest

const rxHostname = goRegexp(
  '^([a-zA-Z0-9\\p{S}\\p{L}]((-?[a-zA-Z0-9\\p{S}\\p{L}]{0,62})?)|([a-zA-Z0-9\\p{S}\\p{L}](([a-zA-Z0-9-\\p{S}\\p{L}]{0,61}[a-zA-Z0-9\\p{S}\\p{L}])?)(\\.)){1,}([a-zA-Z\\p{L}]){2,63})$',
);
function isHostname(s: string): boolean {
  if (!rxHostname(s)) return false;
  if (byteLength(s) > 255) return false;
  return s.split('.').every((p) => byteLength(p) <= 63);
}

const rxISBN10 = goRegexp('^(?:[0-9]{9}X|[0-9]{10})$');
const rxISBN13 = goRegexp('^(?:[0-9]{13})$');
const sanitizeISBN = (s: string): string => s.replace(/[\t\n\f\r -]+/g, '');
function isISBN10(str: string): boolean {
  const s = sanitizeISBN(str);
  if (!rxISBN10(s)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * (s.charCodeAt(i) - 48);
  sum += s[9] === 'X' ? 100 : 10 * (s.charCodeAt(9) - 48);
  return sum % 11 === 0;
}
function isISBN13(str: string): boolean {
  const s = sanitizeISBN(str);
  if (!rxISBN13(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * (s.charCodeAt(i) - 48);
  return s.charCodeAt(12) - 48 - ((10 - (sum % 10)) % 10) === 0;
}

const rxCreditCard = goRegexp(
  '^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11})$',
);
function isCreditCard(str: string): boolean {
  const s = str.replace(/[^0-9]+/g, '');
  if (!rxCreditCard(s)) return false;
  let sum = 0;
  let dbl = false;
  for (let i = s.length - 1; i >= 0; i--) {
    let d = s.charCodeAt(i) - 48;
    if (dbl) {
      d *= 2;
      sum += d >= 10 ? (d % 10) + 1 : d;
    } else sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

const rxSSN = goRegexp('^\\d{3}[- ]?\\d{2}[- ]?\\d{4}$');
const rxHexColor = goRegexp('^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$');
const rgbPart = '(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])';
const rxRGBColor = goRegexp(`^rgb\\(\\s*${rgbPart}\\s*,\\s*${rgbPart}\\s*,\\s*${rgbPart}\\s*\\)$`);
const rxBase64 = goRegexp('^(?:[A-Za-z0-9+\\/]{4})*(?:[A-Za-z0-9+\\/]{2}==|[A-Za-z0-9+\\/]{3}=|[A-Za-z0-9+\\/]{4})$');
const rxUUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const rxUUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const rxUUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const rxUUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const rxShortName = goRegexp('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$');
const rxLongName = goRegexp('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$');

/** The supported formats by normalised name (dashes removed), each with its check. */
const formats: ReadonlyMap<string, FormatCheck> = new Map<string, FormatCheck>([
  ['bsonobjectid', (s) => /^[0-9a-fA-F]{24}$/.test(s)],
  ['uri', isRequestURI],
  ['email', isEmail],
  ['hostname', isHostname],
  ['ipv4', (s) => parseIPSloppy(s) && s.includes('.')],
  ['ipv6', (s) => parseIPStrict(s) !== null && s.includes(':')],
  ['cidr', isCIDR],
  ['mac', isMAC],
  ['uuid', (s) => rxUUID.test(s)],
  ['uuid3', (s) => rxUUID3.test(s)],
  ['uuid4', (s) => rxUUID4.test(s)],
  ['uuid5', (s) => rxUUID5.test(s)],
  ['isbn', (s) => isISBN10(s) || isISBN13(s)],
  ['isbn10', isISBN10],
  ['isbn13', isISBN13],
  ['creditcard', isCreditCard],
  ['ssn', (s) => byteLength(s) === 11 && rxSSN(s)],
  ['hexcolor', rxHexColor],
  ['rgbcolor', rxRGBColor],
  ['byte', rxBase64],
  ['password', () => true],
  ['date', isDate],
  ['duration', isDuration],
  ['datetime', isDateTime],
  // introduced in Kubernetes 1.34
  ['k8sshortname', (s) => byteLength(s) <= 63 && rxShortName(s)],
  ['k8slongname', (s) => byteLength(s) <= 253 && rxLongName(s)],
]);

/**
 * The check kube applies for a schema's `format`, or undefined when kube strips the format (it is
 * not in apiextensions-apiserver's supported set) and so validates nothing.
 */
export function formatCheck(format: string | undefined): FormatCheck | undefined {
  if (!format) return undefined;
  return formats.get(format.replaceAll('-', ''));
}
