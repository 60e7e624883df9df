// Kube's URL library (k8s.io/apiserver/pkg/cel/library/urls.go): url() and isURL() accept what
// Go's url.ParseRequestURI accepts (an absolute URI or an absolute path), and the accessors read
// the parts as Go's url.URL gives them.
import { type GoURL, parseGoRequestURI, parseGoURL } from '../../apimachinery/go-url.js';
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, listType, mapType, objectType, StringType } from '../types.js';
import { CelError, MapValue, ObjectValue, type Val, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';

const URL_TYPE = objectType('kubernetes.URL');

class URLValue extends ObjectValue {
  readonly typeName = 'kubernetes.URL';
  constructor(
    readonly text: string,
    readonly url: GoURL,
  ) {
    super();
  }
  equals(other: ObjectValue): boolean {
    return other instanceof URLValue && other.text === this.text;
  }
}

function toURL(s: string): Val {
  const checked = parseGoRequestURI(s);
  if (!checked.ok) return new CelError(`URL parse error during conversion from string: ${checked.error}`);
  // Parsed again with url.Parse, as kube does: ParseRequestURI keeps a fragment in the path or query.
  const parsed = parseGoURL(s);
  if (!parsed.ok) return new CelError(`URL parse error during conversion from string: ${parsed.error}`);
  return new URLValue(s, parsed.url);
}

const utf8 = new TextEncoder();

/** Go's shouldEscape(c, encodePath) is false for these bytes: unreserved ones and the path's own delimiters. */
const PATH_SAFE = /^[A-Za-z0-9\-_.~$&+,/:;=@]$/;
const pathSafe = (c: number): boolean => PATH_SAFE.test(String.fromCharCode(c));
/** validEncoded also leaves the other sub-delimiters, brackets and escapes alone. */
const validInPath = (c: number): boolean => pathSafe(c) || "!'()*[]%".includes(String.fromCharCode(c));
const isHexByte = (c: number | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(String.fromCharCode(c));

/**
 * url.URL.EscapedPath(): the path as written when it is a valid escaping (validEncoded), else
 * the unescaped path escaped again (a space as %20, other bytes as %XX).
 */
function escapedPath(raw: string): string {
  const bytes = utf8.encode(raw);
  if (bytes.every(validInPath)) return raw;
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    let c = bytes[i]!;
    if (c === 0x25 && isHexByte(bytes[i + 1]) && isHexByte(bytes[i + 2])) {
      c = parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16);
      i += 2;
    }
    out += pathSafe(c) ? String.fromCharCode(c) : `%${c.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's url splitHostPort: a port when the text from the last colon is a valid optional port; brackets dropped. */
function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && /^:[0-9]*$/.test(host.slice(colon))) [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** Go's url.QueryUnescape: '+' is a space; undefined on a malformed escape. */
function queryUnescape(s: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(s)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    if (s[i] === '%') {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...(ch === '+' ? [0x20] : utf8.encode(ch)));
      i += ch.length;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** url.URL.Query(): url.ParseQuery, which drops pairs it cannot read (a ';', a bad escape). */
function query(raw: string): MapValue {
  const out = new Map<string, string[]>();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const k = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const v = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (k === undefined || v === undefined) continue;
    out.set(k, [...(out.get(k) ?? []), v]);
  }
  const m = new MapValue();
  for (const [k, vs] of out) m.set(k, vs);
  return m;
}

const u = (v: Value): GoURL => (v as URLValue).url;

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['string_to_url', ([s]) => toURL(s as string)],
  ['is_url_string', ([s]) => parseGoRequestURI(s as string).ok],
  ['url_get_scheme', ([x]) => u(x!).scheme],
  ['url_get_host', ([x]) => u(x!).host],
  ['url_get_hostname', ([x]) => splitHostPort(u(x!).host)[0]],
  ['url_get_port', ([x]) => splitHostPort(u(x!).host)[1]],
  ['url_get_escaped_path', ([x]) => escapedPath(u(x!).path)],
  ['url_get_query', ([x]) => query(u(x!).rawQuery)],
];

export const URLS_LIBRARY: KubeLibrary = {
  functions: [
    func('url', overload('string_to_url', [StringType], URL_TYPE)),
    func('getScheme', memberOverload('url_get_scheme', [URL_TYPE], StringType)),
    func('getHost', memberOverload('url_get_host', [URL_TYPE], StringType)),
    func('getHostname', memberOverload('url_get_hostname', [URL_TYPE], StringType)),
    func('getPort', memberOverload('url_get_port', [URL_TYPE], StringType)),
    func('getEscapedPath', memberOverload('url_get_escaped_path', [URL_TYPE], StringType)),
    func('getQuery', memberOverload('url_get_query', [URL_TYPE], mapType(StringType, listType(StringType)))),
    func('isURL', overload('is_url_string', [StringType], BoolType)),
  ],
  impls: new Map(IMPLS),
};
