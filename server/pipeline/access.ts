// Who is asking and whether they may: kube's WithAuthentication and WithImpersonation (identify),
// then, after audit has begun and the in-flight limit taken a slot, WithAuthorization. Authentication
// finds the user (or system:anonymous, when allowed), impersonation may replace it (itself
// authorized), and the authorizer chain decides on the request's attributes.
import type { IncomingMessage } from 'node:http';
import { type ApiError, badRequest, unauthorized } from '../../apimachinery/errors.js';
import { asksToImpersonate, impersonate, stripImpersonationHeaders } from '../authn/impersonation.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../../apimachinery/authorization.js';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '../../apimachinery/user.js';
import type { AuthResult } from '../authn/bearer.js';
import { forbiddenError } from '../authz/authorizer.js';

export interface AccessDeps {
  authenticate(req: IncomingMessage): AuthResult | Promise<AuthResult>;
  /** kube's --anonymous-auth. */
  anonymous: boolean;
  authorizer: Authorizer;
}

/** The user kube's anonymous authenticator makes of a request without credentials. */
const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };

/** Who a request acts as, after authentication and impersonation (kube's WithAuthentication, WithImpersonation). */
export interface Identity {
  /** Who the request acts as (the impersonated user when there is one); absent when authentication failed. */
  user: UserInfo | undefined;
  /** Who authenticated, when that is not `user` (audit's impersonatedUser is then `user`). */
  requester?: UserInfo;
  /** Set when the request is refused here: 401, an impersonation 403 or 400. */
  error?: ApiError;
}

/** Synchronous when authentication is (a token-file token, a client certificate): no promise for most requests. */
export function identify(req: IncomingMessage, deps: AccessDeps): Identity | Promise<Identity> {
  const auth = deps.authenticate(req);
  return auth instanceof Promise ? auth.then((a) => identified(req, deps, a)) : identified(req, deps, auth);
}

function identified(req: IncomingMessage, deps: AccessDeps, auth: AuthResult): Identity {
  if (auth.kind === 'invalid') return { user: undefined, error: unauthorized() };
  if (auth.kind === 'anonymous' && !deps.anonymous) return { user: undefined, error: unauthorized() };
  const requester = auth.kind === 'user' ? auth.user : ANONYMOUS;
  if (!asksToImpersonate(req.rawHeaders)) return { user: requester };
  const impersonated = impersonate(requester, req.headersDistinct, (a) => deps.authorizer.authorize(a));
  switch (impersonated.kind) {
    case 'none':
      return { user: requester };
    case 'user':
      stripImpersonationHeaders(req);
      return { user: impersonated.user, requester };
    case 'forbidden':
      return { user: requester, error: impersonated.error };
    case 'error':
      // kube answers these (groups without a user, say) with a plain-text 500; they are the client's mistake.
      return { user: requester, error: badRequest(impersonated.message) };
  }
}

/** kube's WithAuthorization: the decision on the request's attributes, with kube's 403 when it is not allow. */
export function authorizeRequest(
  attributes: AuthorizationAttributes,
  authorizer: Authorizer,
): { result: AuthorizationResult; error?: ApiError } {
  const result = authorizer.authorize(attributes);
  return result.decision === 'allow' ? { result } : { result, error: forbiddenError(attributes, result.reason) };
}
