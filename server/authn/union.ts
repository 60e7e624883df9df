// The request authenticator chain in kube's order and with kube's union semantics: client
// certificate, then the Authorization bearer token, then a WebSocket subprotocol token; each token
// is tried against the token file and then ServiceAccount tokens. The first that knows the user
// wins; if none does, any that failed makes the request a 401 (its reasons logged), otherwise it
// is anonymous. Every authenticated user gets system:authenticated, as kube's AuthenticatedGroupAdder.
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../apimachinery/log.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '../../apimachinery/user.js';
import { bearerToken, isWebSocketRequest, protocolToken, type AuthResult, type TokenAuthenticator } from './bearer.js';
import { aggregateErrors } from '../../apimachinery/errors.js';
import type { ServiceAccountTokenAuthenticator } from './service-account-token.js';
import type { X509Authenticator } from './x509.js';

/** A failed authentication, with kube's reason (for the log; the client sees only 401 Unauthorized). */
type InvalidWithReason = Extract<AuthResult, { kind: 'invalid' }> & { reason: string };
type UnionAuthResult = Exclude<AuthResult, { kind: 'invalid' }> | InvalidWithReason;

interface UnionAuthenticatorOptions {
  /** The --token-auth-file authenticator, wrapped as it is. */
  tokens?: TokenAuthenticator;
  serviceAccounts?: ServiceAccountTokenAuthenticator;
  /** Present when --client-ca-file is set. */
  x509?: X509Authenticator;
  logger?: Logger;
}

/** Each user with system:authenticated added, made once per user (token-file users are shared by every request). */
const authenticated = new WeakMap<UserInfo, UserInfo>();

/** kube's AuthenticatedGroupAdder: system:authenticated added once, never to anonymous or to an unauthenticated-group user. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER) return user;
  if (user.groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) return user;
  // A copy, never the user itself: the same for every request of this user.
  let added = authenticated.get(user);
  if (!added) authenticated.set(user, (added = { ...user, groups: [...user.groups, ALL_AUTHENTICATED] }));
  return added;
}

const authenticatedAs = (user: UserInfo): UnionAuthResult => ({ kind: 'user', user: withAuthenticatedGroup(user) });

/** The bearer token's user; as kube, nothing past authentication sees, logs or forwards the credential. */
function bearerAuthenticated(req: IncomingMessage, user: UserInfo): UnionAuthResult {
  // Cleared, not deleted: a delete turns every request's headers object into a dictionary, slower
  // to read for each filter after this one. Nothing enumerates the headers.
  req.headers.authorization = undefined;
  return authenticatedAs(user);
}

type TokenOutcome = { kind: 'user'; user: UserInfo } | { kind: 'none' } | { kind: 'error'; reason: string };

export class UnionAuthenticator {
  constructor(private readonly opts: UnionAuthenticatorOptions) {}

  /** kube's token union: the token file, then ServiceAccount tokens; errors gathered. */
  private async token(token: string): Promise<TokenOutcome> {
    const fromFile = this.opts.tokens?.userOf(token);
    if (fromFile) return { kind: 'user', user: fromFile };
    if (this.opts.serviceAccounts) {
      const sa = await this.opts.serviceAccounts.authenticateToken(token);
      if (sa.kind === 'user') return { kind: 'user', user: sa.user };
      if (sa.kind === 'error') return { kind: 'error', reason: sa.reason };
    }
    return { kind: 'none' };
  }

  /**
   * Synchronous when a client certificate or the token file decides (no promise on the path of
   * nearly every request); a promise when a ServiceAccount token is checked.
   */
  authenticate(req: IncomingMessage): UnionAuthResult | Promise<UnionAuthResult> {
    const errors: string[] = [];
    if (this.opts.x509) {
      const cert = this.opts.x509.authenticate(req);
      if (cert.kind === 'user') return authenticatedAs(cert.user);
      if (cert.kind === 'invalid') errors.push(cert.reason);
    }
    const token = bearerToken(req.headers.authorization);
    const fromFile = token === undefined ? undefined : this.opts.tokens?.userOf(token);
    if (fromFile) return bearerAuthenticated(req, fromFile);
    return this.authenticateTokens(req, token, errors);
  }

  /** The rest of the chain, from the bearer token on, once no client certificate or token-file user decided. */
  private async authenticateTokens(
    req: IncomingMessage,
    token: string | undefined,
    errors: string[],
  ): Promise<UnionAuthResult> {
    if (token !== undefined) {
      const outcome = await this.token(token);
      if (outcome.kind === 'user') return bearerAuthenticated(req, outcome.user);
      errors.push(outcome.kind === 'error' ? outcome.reason : 'invalid bearer token');
    }

    if (isWebSocketRequest(req.headers)) {
      const fromProtocol = protocolToken(req.headers['sec-websocket-protocol']);
      if (fromProtocol.kind === 'error') errors.push(fromProtocol.reason);
      if (fromProtocol.kind === 'token') {
        const outcome = await this.token(fromProtocol.token);
        if (outcome.kind === 'user') {
          // The token's subprotocol goes, so that it is neither echoed back nor seen further on.
          req.headers['sec-websocket-protocol'] = fromProtocol.protocols.join(',');
          return authenticatedAs(outcome.user);
        }
        errors.push(outcome.kind === 'error' ? outcome.reason : 'invalid token');
      }
    }

    if (errors.length === 0) return { kind: 'anonymous' };
    const reason = aggregateErrors(errors);
    this.opts.logger?.warn('Unable to authenticate the request', { err: reason });
    return { kind: 'invalid', reason };
  }
}
