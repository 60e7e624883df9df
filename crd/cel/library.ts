// Kubernetes CEL libraries beyond the strings/lists/regex/sets ones in env.ts
// (k8s.io/apiserver/pkg/cel/library: ip.go, cidr.go, urls.go, quantity.go, format.go).
import type { Environment } from '@marcbachmann/cel-js';
import { Optional } from '@marcbachmann/cel-js';
import { charge, celEquals } from './env.js';
import { INT64_MAX, INT64_MIN } from '../../apimachinery/int64.js';

type Fn = (...args: never[]) => unknown;

// ---------------------------------------------------------------------------------------------
// IP and CIDR (net.IP, net.CIDR)

export class IPValue {
  constructor(readonly bytes: Uint8Array) {}
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  toString(): string {
    if (this.bytes.length === 4) return Array.from(this.bytes).join('.');
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((this.bytes[i]! << 8) | this.bytes[i + 1]!);
    // RFC 5952: the longest run (length ≥ 2) of zero groups becomes '::'.
    let best = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen && j - i >= 2) (best = i), (bestLen = j - i);
      i = j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (best < 0) return hex.join(':');
    return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
  }
}

export class CIDRValue {
  constructor(
    readonly ip: IPValue,
    readonly prefix: number,
  ) {}
  masked(): CIDRValue {
    const b = new Uint8Array(this.ip.bytes);
    for (let i = 0; i < b.length; i++) {
      const keep = Math.max(0, Math.min(8, this.prefix - i * 8));
      b[i]! &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
    }
    return new CIDRValue(new IPValue(b), this.prefix);
  }
  contains(ip: IPValue): boolean {
    if (ip.family !== this.ip.family) return false;
    return celEquals(new CIDRValue(ip, this.prefix).masked().ip.bytes, this.masked().ip.bytes);
  }
  toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
}

function parseV4(s: string): Uint8Array | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith('0'))) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseV6(s: string): Uint8Array | undefined {
  if (s.includes('%')) return undefined; // zones are refused, as kube
  let tail4: Uint8Array | undefined;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tail4 = parseV4(s.slice(lastColon + 1));
    if (!tail4) return undefined;
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): number[] | undefined => {
    if (h === '') return [];
    const gs = h.split(':');
    const out: number[] = [];
    for (const g of gs) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const a = groups(halves[0]!);
  const b = halves.length === 2 ? groups(halves[1]!) : [];
  if (!a || !b) return undefined;
  const fill = 8 - a.length - b.length;
  if ((halves.length === 1 && fill !== 0) || (halves.length === 2 && fill < 1)) return undefined;
  const all = [...a, ...Array<number>(halves.length === 2 ? fill : 0).fill(0), ...b];
  const out = new Uint8Array(16);
  all.forEach((g, i) => ((out[i * 2] = g >> 8), (out[i * 2 + 1] = g & 0xff)));
  if (tail4) out.set(tail4, 12);
  return out;
}

export function parseIP(s: string): IPValue | undefined {
  if (s.includes(':')) {
    const b = parseV6(s);
    if (!b) return undefined;
    // IPv4-mapped IPv6 addresses are refused (kube: "IPv4-mapped IPv6 addresses are not allowed").
    if (b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return undefined;
    return new IPValue(b);
  }
  const b = parseV4(s);
  return b ? new IPValue(b) : undefined;
}

export function parseCIDR(s: string): CIDRValue | undefined {
  const i = s.indexOf('/');
  if (i < 0) return undefined;
  const ip = parseIP(s.slice(0, i));
  const p = s.slice(i + 1);
  if (!ip || !/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith('0'))) return undefined;
  const n = Number(p);
  if (n > ip.bytes.length * 8) return undefined;
  return new CIDRValue(ip, n);
}

// ---------------------------------------------------------------------------------------------
// Quantity (kubernetes.Quantity): exact rationals

export class QuantityValue {
  /** value = num / den */
  constructor(
    readonly num: bigint,
    readonly den: bigint,
    readonly text: string,
  ) {}
  cmp(o: QuantityValue): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }
}

const binarySuffix: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const decimalSuffix: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export function parseQuantity(s: string): QuantityValue | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(s);
  if (!m) return undefined;
  const [, sign, digits, suffix = ''] = m;
  const [ip, fp = ''] = digits!.split('.');
  let num = BigInt((ip || '0') + fp) * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(fp.length);
  if (binarySuffix[suffix]) num *= binarySuffix[suffix]!;
  else {
    const e = suffix.startsWith('e') || suffix.startsWith('E') ? Number(suffix.slice(1)) : decimalSuffix[suffix]!;
    if (Math.abs(e) > 1000) return undefined;
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  }
  return new QuantityValue(num, den, s);
}

// ---------------------------------------------------------------------------------------------
// URL (kubernetes.URL)

export class URLValue {
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly hostname: string,
    readonly port: string,
    readonly path: string,
    readonly query: string,
  ) {}
}

export function parseURL(s: string): URLValue | undefined {
  // Go's url.ParseRequestURI: an absolute URI or an absolute path, no fragment.
  if (s.includes('#') || /[\s]/.test(s)) return undefined;
  if (s.startsWith('/')) {
    const q = s.indexOf('?');
    return new URLValue('', '', '', '', q < 0 ? s : s.slice(0, q), q < 0 ? '' : s.slice(q + 1));
  }
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(?:\/\/([^/?]*))?([^?]*)(?:\?(.*))?$/.exec(s);
  if (!m) return undefined;
  const [, scheme, authority = '', path = '', query = ''] = m;
  const host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
  let hostname = host;
  let port = '';
  const v6 = /^\[([^\]]*)\](?::(\d*))?$/.exec(host);
  if (v6) (hostname = v6[1]!), (port = v6[2] ?? '');
  else if (host.includes(':'))
    (hostname = host.slice(0, host.lastIndexOf(':'))), (port = host.slice(host.lastIndexOf(':') + 1));
  return new URLValue(scheme!, host, hostname, port, path, query);
}

// ---------------------------------------------------------------------------------------------
// Named formats (kubernetes.NamedFormat), messages as k8s.io/apimachinery/pkg/util/validation

export class NamedFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
}
const maxLen = (n: number): string => `must be no more than ${n} characters`;

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const labelValueFmt = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const qualifiedNameFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';

function fmtCheck(max: number, fmt: string, msg: string, examples: string[]): (s: string) => string[] {
  const re = new RegExp(`^${fmt}$`);
  return (s) => {
    const errs: string[] = [];
    if (s.length > max) errs.push(maxLen(max));
    if (!re.test(s)) errs.push(regexError(msg, fmt, ...examples));
    return errs;
  };
}

const dns1123Label = fmtCheck(
  63,
  dns1123LabelFmt,
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  ['my-name', '123-abc'],
);
const dns1123Subdomain = fmtCheck(
  253,
  dns1123SubdomainFmt,
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  ['example.com'],
);
const dns1035Label = fmtCheck(
  63,
  dns1035LabelFmt,
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  ['my-name', 'abc-123'],
);
const labelValue = fmtCheck(
  63,
  labelValueFmt,
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  ['MyValue', 'my_value', '12345'],
);

function qualifiedName(s: string): string[] {
  const parts = s.split('/');
  let name = s;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix, n] = parts as [string, string];
    name = n;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix).map((e) => `prefix part ${e}`));
  } else if (parts.length > 2) {
    return [
      regexError(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        qualifiedNameFmt,
        'MyName',
        'my.name',
        '123-abc',
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLen(63)}`);
  if (name.length > 0 && !new RegExp(`^${qualifiedNameFmt}$`).test(name)) {
    errs.push(
      `name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

const uuidRe = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const namedFormats: Record<string, (s: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  labelValue,
  dns1123LabelPrefix: (s) => dns1123Label(s.endsWith('-') ? s.slice(0, -1) : s),
  dns1123SubdomainPrefix: (s) => dns1123Subdomain(s.endsWith('.') || s.endsWith('-') ? s.slice(0, -1) : s),
  dns1035LabelPrefix: (s) => dns1035Label(s.endsWith('-') ? s.slice(0, -1) : s),
  uri: (s) => (parseURL(s) ? [] : ['invalid URI']),
  uuid: (s) => (uuidRe.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64']),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date']),
  datetime: (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s))
      ? []
      : ['invalid datetime'],
};

// ---------------------------------------------------------------------------------------------

export function registerKubernetesLibraries(env: Environment): void {
  const fn = (sig: string, f: Fn): void => {
    env.registerFunction(sig, f as (...args: unknown[]) => unknown);
  };
  const err = (m: string): Error => new Error(m);

  // IP
  env.registerType('net.IP', IPValue);
  fn('isIP(string): bool', (s: string) => parseIP(s) !== undefined);
  fn('ip(string): net.IP', (s: string) => {
    const ip = parseIP(s);
    if (!ip) throw err(`IP Address "${s}" parse error during conversion from string`);
    return ip;
  });
  fn('string(net.IP): string', (ip: IPValue) => ip.toString());
  fn('net.IP.family(): int', (ip: IPValue) => BigInt(ip.family));
  fn('net.IP.isUnspecified(): bool', (ip: IPValue) => ip.bytes.every((b) => b === 0));
  fn('net.IP.isLoopback(): bool', (ip: IPValue) =>
    ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1,
  );
  fn('net.IP.isLinkLocalMulticast(): bool', (ip: IPValue) =>
    ip.family === 4
      ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0
      : ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02,
  );
  fn('net.IP.isLinkLocalUnicast(): bool', (ip: IPValue) =>
    ip.family === 4
      ? ip.bytes[0] === 169 && ip.bytes[1] === 254
      : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80,
  );
  fn('net.IP.isGlobalUnicast(): bool', (ip: IPValue) => {
    const b = ip.bytes;
    if (ip.family === 4)
      return !(
        b.every((x) => x === 255) ||
        b.every((x) => x === 0) ||
        b[0] === 127 ||
        (b[0] === 169 && b[1] === 254) ||
        (b[0]! >= 224 && b[0]! <= 239)
      );
    return !(
      b.every((x) => x === 0) ||
      (b.slice(0, 15).every((x) => x === 0) && b[15] === 1) ||
      b[0] === 0xff ||
      (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80)
    );
  });
  env.registerOperator('net.IP == net.IP', (a: IPValue, b: IPValue) => celEquals(a.bytes, b.bytes));

  // CIDR
  env.registerType('net.CIDR', CIDRValue);
  fn('isCIDR(string): bool', (s: string) => parseCIDR(s) !== undefined);
  fn('cidr(string): net.CIDR', (s: string) => {
    const c = parseCIDR(s);
    if (!c) throw err(`network address "${s}" parse error during conversion from string`);
    return c;
  });
  fn('string(net.CIDR): string', (c: CIDRValue) => c.toString());
  fn('net.CIDR.containsIP(net.IP): bool', (c: CIDRValue, ip: IPValue) => c.contains(ip));
  fn('net.CIDR.containsIP(string): bool', (c: CIDRValue, s: string) => {
    const ip = parseIP(s);
    if (!ip) throw err(`IP Address "${s}" parse error during conversion from string`);
    return c.contains(ip);
  });
  const containsCIDR = (c: CIDRValue, o: CIDRValue): boolean => c.prefix <= o.prefix && c.contains(o.ip);
  fn('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR);
  fn('net.CIDR.containsCIDR(string): bool', (c: CIDRValue, s: string) => {
    const o = parseCIDR(s);
    if (!o) throw err(`network address "${s}" parse error during conversion from string`);
    return containsCIDR(c, o);
  });
  fn('net.CIDR.ip(): net.IP', (c: CIDRValue) => c.ip);
  fn('net.CIDR.masked(): net.CIDR', (c: CIDRValue) => c.masked());
  fn('net.CIDR.prefixLength(): int', (c: CIDRValue) => BigInt(c.prefix));
  env.registerOperator(
    'net.CIDR == net.CIDR',
    (a: CIDRValue, b: CIDRValue) => a.prefix === b.prefix && celEquals(a.ip.bytes, b.ip.bytes),
  );

  // URL
  env.registerType('kubernetes.URL', URLValue);
  fn('isURL(string): bool', (s: string) => parseURL(s) !== undefined);
  fn('url(string): kubernetes.URL', (s: string) => {
    const u = parseURL(s);
    if (!u) throw err(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
    return u;
  });
  fn('kubernetes.URL.getScheme(): string', (u: URLValue) => u.scheme);
  fn('kubernetes.URL.getHost(): string', (u: URLValue) => u.host);
  fn('kubernetes.URL.getHostname(): string', (u: URLValue) => u.hostname);
  fn('kubernetes.URL.getPort(): string', (u: URLValue) => u.port);
  fn('kubernetes.URL.getEscapedPath(): string', (u: URLValue) => u.path);
  fn('kubernetes.URL.getQuery(): map<string, list<string>>', (u: URLValue) => {
    const m = new Map<string, string[]>();
    for (const [k, v] of new URLSearchParams(u.query)) m.set(k, [...(m.get(k) ?? []), v]);
    return m;
  });

  // Quantity
  env.registerType('kubernetes.Quantity', QuantityValue);
  fn('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  fn('quantity(string): kubernetes.Quantity', (s: string) => {
    const q = parseQuantity(s);
    if (!q) throw err("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    return q;
  });
  const toQ = (n: bigint): QuantityValue => new QuantityValue(n, 1n, String(n));
  const add = (a: QuantityValue, b: QuantityValue, sign: bigint): QuantityValue =>
    new QuantityValue(a.num * b.den + sign * b.num * a.den, a.den * b.den, '');
  fn(
    'kubernetes.Quantity.isInteger(): bool',
    (q: QuantityValue) => q.num % q.den === 0n && q.num / q.den <= INT64_MAX && q.num / q.den >= INT64_MIN,
  );
  fn('kubernetes.Quantity.asInteger(): int', (q: QuantityValue) => {
    if (q.num % q.den !== 0n || q.num / q.den > INT64_MAX || q.num / q.den < INT64_MIN)
      throw err('cannot convert value to integer');
    return q.num / q.den;
  });
  fn('kubernetes.Quantity.asApproximateFloat(): double', (q: QuantityValue) => Number(q.num) / Number(q.den));
  fn('kubernetes.Quantity.sign(): int', (q: QuantityValue) =>
    BigInt(q.num === 0n ? 0 : q.num < 0n !== q.den < 0n ? -1 : 1),
  );
  fn('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: QuantityValue, b: QuantityValue) =>
    add(a, b, 1n),
  );
  fn('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: QuantityValue, b: bigint) => add(a, toQ(b), 1n));
  fn('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: QuantityValue, b: QuantityValue) =>
    add(a, b, -1n),
  );
  fn('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: QuantityValue, b: bigint) => add(a, toQ(b), -1n));
  fn('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: QuantityValue, b: QuantityValue) =>
    BigInt(a.cmp(b)),
  );
  fn(
    'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
    (a: QuantityValue, b: QuantityValue) => a.cmp(b) > 0,
  );
  fn('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: QuantityValue, b: QuantityValue) => a.cmp(b) < 0);
  env.registerOperator(
    'kubernetes.Quantity == kubernetes.Quantity',
    (a: QuantityValue, b: QuantityValue) => a.cmp(b) === 0,
  );

  // Named formats
  env.registerType('kubernetes.NamedFormat', NamedFormat);
  class FormatNamespace {}
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, check] of Object.entries(namedFormats)) {
    fn(`FormatNamespace.${name}(): kubernetes.NamedFormat`, () => new NamedFormat(name, check));
  }
  fn('FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_n: unknown, name: string) => {
    const check = namedFormats[name];
    return check ? Optional.of(new NamedFormat(name, check)) : Optional.none();
  });
  fn('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: NamedFormat, s: string) => {
    charge(Math.ceil(s.length * 0.1));
    const errs = f.check(s);
    return errs.length ? Optional.of(errs) : Optional.none();
  });
}
