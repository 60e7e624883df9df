// Kube 1.33's IP library (k8s.io/apiserver/pkg/cel/library/ip.go): ip(), isIP(),
// ip.isCanonical(), string(ip), family and the address-class tests, on netip's parsing; zones
// and IPv4-mapped IPv6 addresses are refused.
import { goQuote } from '../../apimachinery/quote.js';
import { func, memberOverload, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, IntType, opaqueType, StringType } from '../types.js';
import { CelError, ObjectValue, type Val, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';
import { type Addr, addrString, is4In6, parseAddr, sameBytes } from './netip.js';

export const IP_TYPE = opaqueType('net.IP');

export class IPValue extends ObjectValue {
  readonly typeName = 'net.IP';
  constructor(readonly addr: Addr) {
    super();
  }
  equals(other: ObjectValue): boolean {
    return other instanceof IPValue && sameBytes(this.addr.bytes, other.addr.bytes);
  }
}

/** kube's parseIPAddr: the address, or its error text. */
function parseIP(s: string): Addr | string {
  const addr = parseAddr(s);
  if (typeof addr === 'string') return `IP Address ${goQuote(s)} parse error during conversion from string: ${addr}`;
  if (addr.zone !== '') return `IP address ${goQuote(s)} with zone value is not allowed`;
  if (is4In6(addr)) return `IPv4-mapped IPv6 address ${goQuote(s)} is not allowed`;
  return addr;
}

export function toIP(s: string): IPValue | CelError {
  const a = parseIP(s);
  return typeof a === 'string' ? new CelError(a) : new IPValue(a);
}

function isCanonical(s: string): Val {
  const a = parseIP(s);
  return typeof a === 'string' ? new CelError(a) : addrString(a) === s;
}

const zeros = (b: Uint8Array): boolean => b.every((x) => x === 0);
const isLoopback = (b: Uint8Array): boolean =>
  b.length === 4 ? b[0] === 127 : zeros(b.subarray(0, 15)) && b[15] === 1;
const isMulticast = (b: Uint8Array): boolean => (b.length === 4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff);
const isLinkLocalUnicast = (b: Uint8Array): boolean =>
  b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
const isLinkLocalMulticast = (b: Uint8Array): boolean =>
  b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
/** netip's IsGlobalUnicast: private ranges count; unspecified, broadcast, loopback, multicast and link-local do not. */
const isGlobalUnicast = (b: Uint8Array): boolean =>
  !zeros(b) &&
  !(b.length === 4 && b.every((x) => x === 255)) &&
  !isLoopback(b) &&
  !isMulticast(b) &&
  !isLinkLocalUnicast(b);

const bytesOf = (v: Value): Uint8Array => (v as IPValue).addr.bytes;

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['string_to_ip', ([s]) => toIP(s as string)],
  ['ip_family', ([ip]) => (bytesOf(ip!).length === 4 ? 4n : 6n)],
  ['ip_is_canonical', ([s]) => isCanonical(s as string)],
  ['ip_is_unspecified', ([ip]) => zeros(bytesOf(ip!))],
  ['ip_is_loopback', ([ip]) => isLoopback(bytesOf(ip!))],
  ['ip_is_link_local_multicast', ([ip]) => isLinkLocalMulticast(bytesOf(ip!))],
  ['ip_is_link_local_unicast', ([ip]) => isLinkLocalUnicast(bytesOf(ip!))],
  ['ip_is_global_unicast', ([ip]) => isGlobalUnicast(bytesOf(ip!))],
  ['is_ip', ([s]) => typeof parseIP(s as string) !== 'string'],
  ['ip_to_string', ([ip]) => addrString((ip as IPValue).addr)],
];

export const IP_LIBRARY: KubeLibrary = {
  functions: [
    func('ip', overload('string_to_ip', [StringType], IP_TYPE)),
    func('family', memberOverload('ip_family', [IP_TYPE], IntType)),
    func('ip.isCanonical', overload('ip_is_canonical', [StringType], BoolType)),
    func('isUnspecified', memberOverload('ip_is_unspecified', [IP_TYPE], BoolType)),
    func('isLoopback', memberOverload('ip_is_loopback', [IP_TYPE], BoolType)),
    func('isLinkLocalMulticast', memberOverload('ip_is_link_local_multicast', [IP_TYPE], BoolType)),
    func('isLinkLocalUnicast', memberOverload('ip_is_link_local_unicast', [IP_TYPE], BoolType)),
    func('isGlobalUnicast', memberOverload('ip_is_global_unicast', [IP_TYPE], BoolType)),
    func('isIP', overload('is_ip', [StringType], BoolType)),
    func('string', overload('ip_to_string', [IP_TYPE], StringType)),
  ],
  impls: new Map(IMPLS),
  types: [IP_TYPE],
};
