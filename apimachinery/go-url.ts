// Go's net/url parsing: url.Parse and url.ParseRequestURI, as far as the parts kube's checks look
// at and the errors they print. Used by the webhook URL rules (validation/webhook.ts), the CRD API
// approval annotation and the OpenAPI `uri` format (ParseRequestURI, through govalidator.IsRequestURI).
import { goQuote } from './field-errors.js';

/** A URL as Go's net/url parses it (the raw, still escaped, text of each part). */
export interface GoURL {
  /** Lower-cased, as url.Parse leaves it. */
  scheme: string;
  /** The rest of a rootless URL with a scheme (`mailto:x`); the other parts are then empty. */
  opaque: string;
  /** The userinfo as written, when there is one. */
  user?: string;
  host: string;
  path: string;
  rawQuery: string;
  /** A trailing `?` with nothing after it. */
  forceQuery: boolean;
  fragment: string;
}

export type GoURLResult = { ok: true; url: GoURL } | { ok: false; error: string };

const isAlnum = (c: string): boolean => /^[A-Za-z0-9]$/.test(c);
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

type EscapeMode = 'path' | 'host' | 'zone' | 'userPassword' | 'fragment';

/** url.shouldEscape for the host and zone modes (the only ones whose unescape refuses unescaped bytes). */
function hostShouldEscape(c: string): boolean {
  if (isAlnum(c)) return false;
  return !'!$&\'()*+,;=:[]<>"-_.~'.includes(c);
}

/** url.unescape: only its errors (EscapeError, InvalidHostError) matter here. */
function unescapeError(s: string, mode: EscapeMode): string | undefined {
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      const esc = s.slice(i, i + 3);
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) return `invalid URL escape ${goQuote(esc)}`;
      if (mode === 'host' && parseInt(s[i + 1]!, 16) < 8 && esc !== '%25') return `invalid URL escape ${goQuote(esc)}`;
      if (mode === 'zone') {
        const v = parseInt(s.slice(i + 1, i + 3), 16);
        if (esc !== '%25' && v !== 0x20 && hostShouldEscape(String.fromCharCode(v)))
          return `invalid URL escape ${goQuote(esc)}`;
      }
      i += 3;
      continue;
    }
    if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && hostShouldEscape(c))
      return `invalid character ${goQuote(c)} in host name`;
    i++;
  }
  return undefined;
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

/** url.parseHost (the host as written; an error as Go's text). */
function parseHost(host: string): { host: string } | { error: string } {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
    // RFC 6874: a zone identifier, `%25` then the zone, inside the brackets.
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      const err =
        unescapeError(host.slice(0, zone), 'host') ??
        unescapeError(host.slice(zone, i), 'zone') ??
        unescapeError(host.slice(i), 'host');
      return err ? { error: err } : { host };
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
    }
  }
  const err = unescapeError(host, 'host');
  return err ? { error: err } : { host };
}

const USERINFO_CHARS = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/;

/** url.parse: the URL without its fragment; the error is the bare one, not yet url.Error's. */
function parse(raw: string, viaRequest: boolean): { url: GoURL } | { error: string } {
  // stringContainsCTLByte
  if (/[\x00-\x1f\x7f]/.test(raw)) return { error: 'net/url: invalid control character in URL' };
  if (raw === '' && viaRequest) return { error: 'empty url' };
  const url: GoURL = { scheme: '', opaque: '', host: '', path: '', rawQuery: '', forceQuery: false, fragment: '' };
  if (raw === '*') {
    url.path = '*';
    return { url };
  }
  // getScheme
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return { error: 'missing protocol scheme' };
      url.scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      // Rootless paths per RFC 3986 are opaque.
      url.opaque = rest;
      return { url };
    }
    if (viaRequest) return { error: 'invalid URI for request' };
    if (rest.split('/')[0]!.includes(':')) return { error: 'first path segment in URL cannot contain colon' };
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    // parseAuthority
    const at = authority.lastIndexOf('@');
    const parsed = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if ('error' in parsed) return parsed;
    url.host = parsed.host;
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!USERINFO_CHARS.test(userinfo)) return { error: 'net/url: invalid userinfo' };
      const err = unescapeError(userinfo, 'userPassword');
      if (err) return { error: err };
      url.user = userinfo;
    }
  }
  const err = unescapeError(rest, 'path');
  if (err) return { error: err };
  url.path = rest;
  return { url };
}

/** url.Error's text: `parse "<url>": <err>`. */
const fail = (text: string, err: string): { ok: false; error: string } => ({
  ok: false,
  error: `parse ${goQuote(text)}: ${err}`,
});

/** Go's url.Parse; the error as url.Error prints it. */
export function parseGoURL(raw: string): GoURLResult {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const frag = hash < 0 ? '' : raw.slice(hash + 1);
  const parsed = parse(u, false);
  if ('error' in parsed) return fail(u, parsed.error);
  if (frag !== '') {
    const err = unescapeError(frag, 'fragment');
    if (err) return fail(raw, err);
    parsed.url.fragment = frag;
  }
  return { ok: true, url: parsed.url };
}

/** Go's url.ParseRequestURI: no fragment, and no relative reference (an HTTP request's target). */
export function parseGoRequestURI(raw: string): GoURLResult {
  const parsed = parse(raw, true);
  return 'error' in parsed ? fail(raw, parsed.error) : { ok: true, url: parsed.url };
}

/** Go's url unescaping of a well-formed part (a fragment: `+` stays): %XX to bytes, read back as UTF-8. */
export function unescapeGoURL(s: string): string {
  const bytes = Buffer.from(s, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const hex = bytes.subarray(i + 1, i + 3).toString('latin1');
    if (bytes[i] === 0x25 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(bytes[i]!);
  }
  return Buffer.from(out).toString('utf8');
}
