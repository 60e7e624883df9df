// What authorization decides on (kube's authorizer.Attributes) and how it answers: the seam between
// the authorizers (RBAC, AlwaysAllow), the front door that asks before serving, the admission
// plugins and registries that ask again (blockOwnerDeletion, RBAC escalation), and the access
// reviews that ask on a client's behalf.
import type { UserInfo } from './user.js';

export interface AuthorizationAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection; impersonate, bind, escalate, use; or an HTTP verb for a path. */
  verb: string;
  /** True for /api and /apis resource paths; false for non-resource URLs (then only `path` counts). */
  resourceRequest: boolean;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  /** '' for cluster-scoped resources and for requests across all namespaces. */
  namespace: string;
  name: string;
  /** The URL path of a non-resource request. */
  path: string;
}

/** kube's authorizer.Decision: "no opinion" lets the next authorizer decide, and denies at the end. */
export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why, as kube's authorizers say it (RBAC: `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "bob"`). */
  reason: string;
}

export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

/** What a user may do in a namespace (kube's RuleResolver), for SelfSubjectRulesReview and escalation checks. */
export interface RulesResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** True when some rules could not be resolved (a binding to a missing role): the list is a lower bound. */
  incomplete: boolean;
  evaluationError: string;
}

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): AuthorizationResult;
  rulesFor(user: UserInfo, namespace: string): RulesResult;
}
