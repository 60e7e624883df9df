// Who is asking and whether they may: kube's WithAuthentication, WithImpersonation and
// WithAuthorization filters as one step of the front door. Authentication finds the user (or
// system:anonymous, when allowed), impersonation may replace it (itself authorized), and the
// authorizer chain decides on the request's attributes. The outcome carries what audit records.
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest, unauthorized } from '../../apimachinery/errors.js';
import { impersonate, stripImpersonationHeaders } from '../authn/impersonation.js';
import type { AuthorizationAttributes, Authorizer } from '../../apimachinery/authorization.js';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '../../apimachinery/user.js';
import type { AuthResult } from '../authn/bearer.js';
import { forbiddenError, requestAttributes } from '../authz/authorizer.js';
import type { RequestInfo } from './request-info.js';

export interface AccessDeps {
  authenticate(req: IncomingMessage): AuthResult | Promise<AuthResult>;
  /** kube's --anonymous-auth. */
  anonymous: boolean;
  authorizer: Authorizer;
}

/** The user kube's anonymous authenticator makes of a request without credentials. */
export const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };

export interface Access {
  /** Who the request acts as (the impersonated user when there is one). */
  user: UserInfo | undefined;
  /** Who authenticated, when that is not `user` (audit's impersonatedUser is then `user`). */
  requester?: UserInfo;
  attributes?: AuthorizationAttributes;
  /** The authorizer's decision and reason, for audit's annotations. */
  decision?: { allowed: boolean; reason: string };
  /** Set when the request is refused: 401, 403, or a malformed request. */
  error?: ApiError;
}

export async function checkAccess(req: IncomingMessage, info: RequestInfo | ApiError, deps: AccessDeps): Promise<Access> {
  const auth = await deps.authenticate(req);
  if (auth.kind === 'invalid') return { user: undefined, error: unauthorized() };
  if (auth.kind === 'anonymous' && !deps.anonymous) return { user: undefined, error: unauthorized() };
  const requester = auth.kind === 'user' ? auth.user : ANONYMOUS;
  let user = requester;
  const impersonated = impersonate(requester, req.headersDistinct, (a) => deps.authorizer.authorize(a));
  switch (impersonated.kind) {
    case 'none':
      break;
    case 'user':
      stripImpersonationHeaders(req);
      user = impersonated.user;
      break;
    case 'forbidden':
      return { user: requester, error: impersonated.error };
    case 'error':
      // kube answers these (groups without a user, say) with a plain-text 500; they are the client's mistake.
      return { user: requester, error: badRequest(impersonated.message) };
  }
  const acting = user === requester ? {} : { requester };
  // A path kube's request info cannot make sense of is refused before authorization.
  if (info instanceof ApiError) return { user, ...acting, error: info };
  const attributes = requestAttributes(user, info);
  const result = deps.authorizer.authorize(attributes);
  const allowed = result.decision === 'allow';
  const decision = { allowed, reason: result.reason };
  if (!allowed) return { user, ...acting, attributes, decision, error: forbiddenError(attributes, result.reason) };
  return { user, ...acting, attributes, decision };
}
