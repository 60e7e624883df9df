// Go's net/netip parsing as kube's IP and CIDR libraries run it: ParseAddr and ParsePrefix with
// their error texts, and Addr.String()'s forms (RFC 5952 for IPv6).
import { goQuote } from '../../apimachinery/quote.js';

export interface Addr {
  /** 4 or 16 bytes. */
  readonly bytes: Uint8Array;
  readonly zone: string;
}

class ParseAddrError extends Error {}

function addrError(input: string, msg: string, at?: string): ParseAddrError {
  return new ParseAddrError(
    `ParseAddr(${goQuote(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${goQuote(at)})` : ''}`,
  );
}

/** netip's parseIPv4Fields over in[off:end] into `out` at `pos`. */
function parseIPv4Fields(input: string, off: number, end: number, out: Uint8Array, at: number): void {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.')
        throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  out[at + 3] = val;
}

const hexDigit = (c: string | undefined): number =>
  c === undefined ? -1 : '0123456789abcdef'.indexOf(c.toLowerCase());

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const d = hexDigit(s[off]);
      if (d < 0) break;
      if (off > 3) throw addrError(input, 'each colon-separated field must have at most 4 hex digits', s);
      acc = acc * 16 + d;
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (s[off] === '.') {
      if (ellipsis < 0 && i !== 12)
        throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16)
        throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) throw addrError(input, 'the :: must expand to at least one field of zeros');
  return { bytes: ip, zone };
}

/** netip.ParseAddr: the address, or Go's error text. */
export function parseAddr(s: string): Addr | string {
  try {
    for (const c of s) {
      if (c === '.') {
        const b = new Uint8Array(4);
        parseIPv4Fields(s, 0, s.length, b, 0);
        return { bytes: b, zone: '' };
      }
      if (c === ':') return parseIPv6(s);
      if (c === '%') throw addrError(s, 'missing IPv6 address');
    }
    throw addrError(s, 'unable to parse IP');
  } catch (e) {
    if (e instanceof ParseAddrError) return e.message;
    throw e;
  }
}

/** Addr.Is4In6: ::ffff:a.b.c.d. */
export const is4In6 = (a: Addr): boolean =>
  a.bytes.length === 16 &&
  a.bytes.subarray(0, 10).every((b) => b === 0) &&
  a.bytes[10] === 0xff &&
  a.bytes[11] === 0xff;

/** Addr.String(): dotted IPv4; IPv6 in RFC 5952's form (the first longest run of two or more zero groups as ::). */
export function addrString(a: Addr): string {
  const b = a.bytes;
  if (b.length === 4) return b.join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  const text = best < 0 ? hex.join(':') : `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
  return a.zone === '' ? text : `${text}%${a.zone}`;
}

export interface Prefix {
  readonly addr: Addr;
  readonly bits: number;
}

/** netip.ParsePrefix: the prefix, or Go's error text. */
export function parsePrefix(s: string): Prefix | string {
  const fail = (msg: string): string => `netip.ParsePrefix(${goQuote(s)}): ${msg}`;
  const slash = s.lastIndexOf('/');
  if (slash < 0) return fail("no '/'");
  const addr = parseAddr(s.slice(0, slash));
  if (typeof addr === 'string') return fail(addr);
  if (addr.bytes.length === 16 && addr.zone !== '') return fail('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  // strconv.Atoi would take a sign or leading zeros; ParsePrefix refuses them.
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText) || bitsText.length > 19)
    return fail(`bad bits after slash: ${goQuote(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > addr.bytes.length * 8) return fail('prefix length out of range');
  return { addr, bits };
}

/** Prefix.Masked()'s address: the bits past the prefix cleared. */
export function maskedAddr(p: Prefix): Addr {
  const b = new Uint8Array(p.addr.bytes);
  for (let i = 0; i < b.length; i++) {
    const keep = Math.max(0, Math.min(8, p.bits - i * 8));
    b[i]! &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return { bytes: b, zone: '' };
}

export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Prefix.Contains: same family, equal under the prefix's mask. */
export const prefixContains = (p: Prefix, a: Addr): boolean =>
  a.bytes.length === p.addr.bytes.length &&
  a.zone === '' &&
  sameBytes(maskedAddr({ addr: a, bits: p.bits }).bytes, maskedAddr(p).bytes);

/** Prefix.Overlaps: same family, and equal under the shorter mask. */
export function prefixOverlaps(p: Prefix, o: Prefix): boolean {
  if (p.addr.bytes.length !== o.addr.bytes.length) return false;
  const bits = Math.min(p.bits, o.bits);
  return sameBytes(maskedAddr({ addr: p.addr, bits }).bytes, maskedAddr({ addr: o.addr, bits }).bytes);
}
