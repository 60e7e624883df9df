// Kube 1.33's CIDR library (k8s.io/apiserver/pkg/cel/library/cidr.go): cidr(), isCIDR(),
// containsIP, containsCIDR, ip, prefixLength, masked, string(cidr), on netip.ParsePrefix.
// cidr()'s error repeats its prefix, as kube's does (parseCIDR and stringToCIDR both add it).
import { goQuote } from '../../apimachinery/quote.js';
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, IntType, opaqueType, StringType } from '../types.js';
import { CelError, ObjectValue, type Val, type Value } from '../values.js';
import { IP_TYPE, IPValue, toIP } from './ip.js';
import type { KubeLibrary } from './library.js';
import {
  addrString,
  is4In6,
  maskedAddr,
  type Prefix,
  parsePrefix,
  prefixContains,
  prefixOverlaps,
  sameBytes,
} from './netip.js';

const CIDR_TYPE = opaqueType('net.CIDR');

class CIDRValue extends ObjectValue {
  readonly typeName = 'net.CIDR';
  constructor(readonly prefix: Prefix) {
    super();
  }
  equals(other: ObjectValue): boolean {
    return (
      other instanceof CIDRValue &&
      other.prefix.bits === this.prefix.bits &&
      sameBytes(other.prefix.addr.bytes, this.prefix.addr.bytes)
    );
  }
}

const PARSE_ERROR = 'network address parse error during conversion from string';

/** kube's parseCIDR: the prefix, or its error text. */
function parseCIDR(s: string): Prefix | string {
  const p = parsePrefix(s);
  if (typeof p === 'string') return `${PARSE_ERROR}: ${p}`;
  if (is4In6(p.addr)) return `IPv4-mapped IPv6 address ${goQuote(s)} is not allowed`;
  return p;
}

function toCIDR(s: string): CIDRValue | CelError {
  const p = parseCIDR(s);
  return typeof p === 'string' ? new CelError(`${PARSE_ERROR}: ${p}`) : new CIDRValue(p);
}

const prefix = (v: Value): Prefix => (v as CIDRValue).prefix;
const containsCIDR = (c: Prefix, o: Prefix): boolean => prefixOverlaps(c, o) && c.bits <= o.bits;

function withParsed<T extends Value>(parsed: T | CelError, f: (v: T) => Val): Val {
  return parsed instanceof CelError ? parsed : f(parsed);
}

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['string_to_cidr', ([s]) => toCIDR(s as string)],
  ['cidr_contains_ip_string', ([c, s]) => withParsed(toIP(s as string), (ip) => prefixContains(prefix(c!), ip.addr))],
  ['cidr_contains_ip_ip', ([c, ip]) => prefixContains(prefix(c!), (ip as IPValue).addr)],
  ['cidr_contains_cidr_string', ([c, s]) => withParsed(toCIDR(s as string), (o) => containsCIDR(prefix(c!), o.prefix))],
  ['cidr_contains_cidr', ([c, o]) => containsCIDR(prefix(c!), prefix(o!))],
  ['cidr_ip', ([c]) => new IPValue(prefix(c!).addr)],
  ['cidr_prefix_length', ([c]) => BigInt(prefix(c!).bits)],
  ['cidr_masked', ([c]) => new CIDRValue({ addr: maskedAddr(prefix(c!)), bits: prefix(c!).bits })],
  ['is_cidr', ([s]) => typeof parseCIDR(s as string) !== 'string'],
  ['cidr_to_string', ([c]) => `${addrString(prefix(c!).addr)}/${prefix(c!).bits}`],
];

export const CIDR_LIBRARY: KubeLibrary = {
  functions: [
    func('cidr', overload('string_to_cidr', [StringType], CIDR_TYPE)),
    func(
      'containsIP',
      memberOverload('cidr_contains_ip_string', [CIDR_TYPE, StringType], BoolType),
      memberOverload('cidr_contains_ip_ip', [CIDR_TYPE, IP_TYPE], BoolType),
    ),
    func(
      'containsCIDR',
      memberOverload('cidr_contains_cidr_string', [CIDR_TYPE, StringType], BoolType),
      memberOverload('cidr_contains_cidr', [CIDR_TYPE, CIDR_TYPE], BoolType),
    ),
    func('ip', memberOverload('cidr_ip', [CIDR_TYPE], IP_TYPE)),
    func('prefixLength', memberOverload('cidr_prefix_length', [CIDR_TYPE], IntType)),
    func('masked', memberOverload('cidr_masked', [CIDR_TYPE], CIDR_TYPE)),
    func('isCIDR', overload('is_cidr', [StringType], BoolType)),
    func('string', overload('cidr_to_string', [CIDR_TYPE], StringType)),
  ],
  impls: new Map(IMPLS),
  types: [CIDR_TYPE],
};
