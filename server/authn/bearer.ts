// Bearer-token authentication with kube's outcomes: no credentials (anonymous: only the public
// health and version paths), a known token (the user), or a token that is not known (401 on
// every path, the public ones included, as kube answers a failed authentication). The token comes
// in the Authorization header or, for a WebSocket upgrade (browsers cannot set headers), in a
// subprotocol, as kube's bearertoken and websocket protocol authenticators read them, in that order.
import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { UserInfo } from '../../apimachinery/user.js';
import type { TokenRecord } from './token-file.js';

export type AuthResult = { kind: 'anonymous' } | { kind: 'user'; user: UserInfo } | { kind: 'invalid' };

/**
 * The token of an `Authorization: Bearer <token>` header, as kube's bearertoken authenticator reads
 * it: the scheme is case-insensitive and exactly one space separates it from the token.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const auth = header?.trim();
  // kube's strings.Split(auth, " ") read in place: every request passes here, the array cost.
  // No letter but these six lower-cases to them, so the scheme is six characters long.
  if (auth?.indexOf(' ') !== 6 || auth.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const end = auth.indexOf(' ', 7);
  return end === 7 ? undefined : auth.slice(7, end < 0 ? undefined : end);
}

/** The subprotocol `base64url.bearer.authorization.k8s.io.<token, base64url without padding>`. */
export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** kube's wsstream.IsWebSocketRequest. */
export function isWebSocketRequest(headers: IncomingHttpHeaders): boolean {
  if (headers.upgrade?.toLowerCase() !== 'websocket') return false;
  return /(^|.*,\s*)upgrade($|\s*,)/.test(headers.connection?.toLowerCase() ?? '');
}

/** Go's base64.RawURLEncoding alphabet; a last group of one character cannot be decoded. */
const RAW_BASE64URL = /^[A-Za-z0-9_-]*$/;

type ProtocolToken =
  /** No token subprotocol (or an empty one): other authenticators decide. */
  | { kind: 'none' }
  | { kind: 'token'; token: string /** The other subprotocols, the one to echo among them. */; protocols: string[] }
  | { kind: 'error'; reason: string };

/**
 * The bearer token of a WebSocket upgrade's `Sec-WebSocket-Protocol`, as kube's websocket
 * ProtocolAuthenticator reads it: one token subprotocol at most, decoded as unpadded base64url to
 * valid UTF-8, and at least one other subprotocol left to echo back.
 */
export function protocolToken(header: string | string[] | undefined): ProtocolToken {
  let token = '';
  let sawToken = false;
  const protocols: string[] = [];
  for (const value of typeof header === 'string' ? [header] : (header ?? [])) {
    for (const raw of value.split(',')) {
      const protocol = raw.trim();
      if (!protocol.startsWith(BEARER_PROTOCOL_PREFIX)) {
        protocols.push(protocol);
        continue;
      }
      if (sawToken) return { kind: 'error', reason: 'multiple base64.bearer.authorization tokens specified' };
      sawToken = true;
      const encoded = protocol.slice(BEARER_PROTOCOL_PREFIX.length);
      if (!RAW_BASE64URL.test(encoded) || encoded.length % 4 === 1)
        return { kind: 'error', reason: 'invalid base64.bearer.authorization token encoding' };
      const decoded = Buffer.from(encoded, 'base64url');
      if (!isUtf8(decoded)) return { kind: 'error', reason: 'invalid base64.bearer.authorization token' };
      token = decoded.toString('utf8');
    }
  }
  if (token !== '' && protocols.length === 0) return { kind: 'error', reason: 'missing additional subprotocol' };
  if (token === '') return { kind: 'none' };
  return { kind: 'token', token, protocols };
}

export class TokenAuthenticator {
  private users: Map<string, UserInfo>;

  constructor(records: readonly TokenRecord[]) {
    this.users = new Map(records.map((r) => [r.token, r.user]));
  }

  /** The token file's records from now on (a replica takes another's edit of the shared file). */
  setRecords(records: readonly TokenRecord[]): void {
    this.users = new Map(records.map((r) => [r.token, r.user]));
  }

  /** The user the file gives `token` to. */
  userOf(token: string): UserInfo | undefined {
    return this.users.get(token);
  }

  /** kube's union of the two: the first that knows the user wins; any that failed makes it a 401. */
  authenticate(req: IncomingMessage): AuthResult {
    let failed = false;
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined) {
      const user = this.userOf(token);
      if (user) {
        // As kube does: nothing past authentication should see, log or forward the credential
        // (cleared, not deleted, as union.ts does).
        req.headers.authorization = undefined;
        return { kind: 'user', user };
      }
      failed = true;
    }
    if (isWebSocketRequest(req.headers)) {
      const fromProtocol = protocolToken(req.headers['sec-websocket-protocol']);
      if (fromProtocol.kind === 'error') failed = true;
      if (fromProtocol.kind === 'token') {
        const user = this.userOf(fromProtocol.token);
        if (user) {
          // The token's subprotocol goes, so that it is neither echoed back nor seen further on.
          req.headers['sec-websocket-protocol'] = fromProtocol.protocols.join(',');
          return { kind: 'user', user };
        }
        failed = true;
      }
    }
    return failed ? { kind: 'invalid' } : { kind: 'anonymous' };
  }
}
