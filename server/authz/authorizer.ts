// kube-apiserver's authorizer chain: system:masters first (kube's privileged-group authorizer, so
// the admin is never locked out by a broken policy), then each --authorization-mode in order. The
// first to allow or deny decides; if all have no opinion, the request is denied.
import type {
  AuthorizationAttributes,
  AuthorizationResult,
  Authorizer,
  RulesResult,
} from '../../apimachinery/authorization.js';
import { SYSTEM_PRIVILEGED_GROUP, type UserInfo } from '../../apimachinery/user.js';
import type { RequestInfo } from '../request/request-info.js';
import { type ApiError, forbidden } from '../../apimachinery/errors.js';
import { goQuote } from '../../apimachinery/quote.js';
import { appendAll } from '../../apimachinery/append.js';

/** The --authorization-mode values served: kube's RBAC, and its AlwaysAllow and AlwaysDeny. */
export const AUTHORIZATION_MODES = ['RBAC', 'AlwaysAllow', 'AlwaysDeny'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

const EVERYTHING_RULES: RulesResult = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
  evaluationError: '',
};
const NO_RULES: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' };

/** kube's AlwaysAllow mode: every request of every user; its rules are everything. */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: () => EVERYTHING_RULES,
};

/** kube's AlwaysDeny mode, with its reason text. */
export const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ ...NO_RULES, incomplete: true }),
};

/** authorizerfactory.NewPrivilegedGroups(system:masters). */
const privilegedGroup: Authorizer = {
  authorize: (a) =>
    a.user.groups.includes(SYSTEM_PRIVILEGED_GROUP)
      ? { decision: 'allow', reason: '' }
      : { decision: 'no-opinion', reason: '' },
  rulesFor: (user) => (user.groups.includes(SYSTEM_PRIVILEGED_GROUP) ? EVERYTHING_RULES : NO_RULES),
};

/** The union of authorizers, as kube's union.New; reasons of those without an opinion are kept for the 403. */
export function authorizerChain(modes: readonly Authorizer[]): Authorizer {
  const all = [privilegedGroup, ...modes];
  return {
    authorize(a: AuthorizationAttributes): AuthorizationResult {
      const reasons: string[] = [];
      for (const authz of all) {
        const r = authz.authorize(a);
        if (r.decision !== 'no-opinion') return r;
        if (r.reason) reasons.push(r.reason);
      }
      return { decision: 'no-opinion', reason: reasons.join('\n') };
    },
    rulesFor(user: UserInfo, namespace: string): RulesResult {
      // kube's union rule resolver: the rules of every mode, incomplete if any was.
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' };
      const errors: string[] = [];
      for (const authz of all) {
        const r = authz.rulesFor(user, namespace);
        appendAll(out.resourceRules, r.resourceRules);
        appendAll(out.nonResourceRules, r.nonResourceRules);
        out.incomplete ||= r.incomplete;
        if (r.evaluationError) errors.push(r.evaluationError);
      }
      out.evaluationError = errors.length > 1 ? `[${errors.join(', ')}]` : (errors[0] ?? '');
      return out;
    },
  };
}

/** The attributes of a request as kube's WithAuthorization builds them from the request info. */
export function requestAttributes(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    resourceRequest: info.isResourceRequest,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
    path: info.path,
  };
}

/** kube's forbiddenMessage: who cannot do what, where. */
function forbiddenMessage(a: AuthorizationAttributes): string {
  const user = goQuote(a.user.name);
  if (!a.resourceRequest) return `User ${user} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${goQuote(a.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} ${where}`;
}

/** responsewriters' sanitizer: the message may be shown in a browser. */
const sanitizeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * kube's responsewriters.Forbidden (ForbiddenStatusError): NewForbidden on the attributes' group
 * and resource, the sanitized message, then the authorizer's reason.
 */
export function forbiddenError(a: AuthorizationAttributes, reason: string): ApiError {
  const msg = sanitizeHtml(forbiddenMessage(a));
  const why = reason ? `${msg}: ${reason}` : msg;
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  let message: string;
  if (!qualified) message = `forbidden: ${why}`;
  else if (a.name === '') message = `${qualified} is forbidden: ${why}`;
  else message = `${qualified} ${goQuote(a.name)} is forbidden: ${why}`;
  // StatusDetails fields are omitempty.
  return forbidden(message, {
    ...(a.name ? { name: a.name } : {}),
    ...(a.apiGroup ? { group: a.apiGroup } : {}),
    ...(a.resource ? { kind: a.resource } : {}),
  });
}
