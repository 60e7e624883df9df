// kube's RBAC authorizer (plugin/pkg/auth/authorizer/rbac) over whatever holds the roles and
// bindings: the resolver walks ClusterRoleBindings, then the namespace's RoleBindings, and visits
// each rule of each role bound to the user, as DefaultRuleResolver.VisitRulesFor does.
import { aggregateErrors } from '../errors.js';
import type {
  AuthorizationAttributes,
  AuthorizationResult,
  Authorizer,
  NonResourceRuleInfo,
  ResourceRuleInfo,
  RulesResult,
} from '../authorization.js';
import { goQuote } from '../quote.js';
import type { UserInfo } from '../user.js';
import { firstApplyingSubject, ruleAllows } from './rules.js';
import {
  type ClusterRole,
  type ClusterRoleBinding,
  type PolicyRule,
  RBAC_GROUP,
  type Role,
  type RoleBinding,
  type RoleRef,
  SERVICE_ACCOUNT_KIND,
  type Subject,
  rulesOf,
  subjectsOf,
} from './types.js';

/**
 * Where the authorizer reads roles and bindings from (an informer's index, a test's lists). A
 * role that does not exist is `undefined`; the resolver words the not-found error as kube's
 * listers do.
 */
export interface RuleSource {
  clusterRoleBindings(): readonly ClusterRoleBinding[];
  roleBindings(namespace: string): readonly RoleBinding[];
  clusterRole(name: string): ClusterRole | undefined;
  role(namespace: string, name: string): Role | undefined;
}

/** The rules a roleRef points at, or kube's error text (GetRoleReferenceRules with a lister's NotFound). */
export function roleReferenceRules(
  source: RuleSource,
  roleRef: RoleRef,
  bindingNamespace: string,
): { rules: PolicyRule[] } | { error: string } {
  switch (roleRef.kind) {
    case 'Role': {
      const role = source.role(bindingNamespace, roleRef.name);
      return role ? { rules: rulesOf(role) } : { error: `role.${RBAC_GROUP} ${goQuote(roleRef.name)} not found` };
    }
    case 'ClusterRole': {
      const role = source.clusterRole(roleRef.name);
      return role
        ? { rules: rulesOf(role) }
        : { error: `clusterrole.${RBAC_GROUP} ${goQuote(roleRef.name)} not found` };
    }
    default:
      return { error: `unsupported role reference kind: ${goQuote(roleRef.kind)}` };
  }
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === SERVICE_ACCOUNT_KIND) return `${s.kind} ${goQuote(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${goQuote(s.name)}`;
}

/** What the reason of an allow names: `ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`. */
function describeBinding(binding: RoleBinding, subject: Subject, clusterScoped: boolean): string {
  const ref = binding.roleRef;
  if (clusterScoped)
    return `ClusterRoleBinding ${goQuote(binding.metadata.name ?? '')} of ${ref.kind} ${goQuote(ref.name)} to ${describeSubject(subject, '')}`;
  const ns = binding.metadata.namespace ?? '';
  return `RoleBinding ${goQuote(`${binding.metadata.name ?? ''}/${ns}`)} of ${ref.kind} ${goQuote(ref.name)} to ${describeSubject(subject, ns)}`;
}

/** Called per rule (with where it came from) or per resolution error; false stops the walk. */
type RuleVisitor = (source: string | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

/** kube's VisitRulesFor: cluster-wide bindings first, then the namespace's (when there is one). */
function visitRulesFor(source: RuleSource, user: UserInfo, namespace: string, visit: RuleVisitor): void {
  const walk = (bindings: readonly RoleBinding[], bindingNamespace: string): boolean => {
    for (const binding of bindings) {
      const subjects = subjectsOf(binding);
      const i = firstApplyingSubject(user, subjects, bindingNamespace);
      if (i < 0) continue;
      const resolved = roleReferenceRules(source, binding.roleRef, bindingNamespace);
      if ('error' in resolved) {
        if (!visit(undefined, undefined, resolved.error)) return false;
        continue;
      }
      // Described lazily: most visited rules never allow anything.
      const described = describeBinding(binding, subjects[i]!, bindingNamespace === '');
      for (const rule of resolved.rules) if (!visit(described, rule, undefined)) return false;
    }
    return true;
  };
  if (!walk(source.clusterRoleBindings(), '')) return;
  if (namespace !== '') walk(source.roleBindings(namespace), namespace);
}

/**
 * kube's RBACAuthorizer.Authorize: allow at the first rule that allows, with the binding it came
 * from as the reason; otherwise no opinion, giving the resolution errors (a binding to a missing
 * role) as the reason.
 */
export function authorize(source: RuleSource, attrs: AuthorizationAttributes): AuthorizationResult {
  let reason = '';
  let allowed = false;
  const errors: string[] = [];
  visitRulesFor(source, attrs.user, attrs.namespace, (from, rule, error) => {
    if (rule && ruleAllows(attrs, rule)) {
      allowed = true;
      reason = `RBAC: allowed by ${from ?? ''}`;
      return false;
    }
    if (error !== undefined) errors.push(error);
    return true;
  });
  if (allowed) return { decision: 'allow', reason };
  return { decision: 'no-opinion', reason: errors.length ? `RBAC: ${aggregateErrors(errors)}` : '' };
}

/** Every rule bound to the user in the namespace (cluster-wide ones included), and the resolution errors. */
export function policyRulesFor(
  source: RuleSource,
  user: UserInfo,
  namespace: string,
): { rules: PolicyRule[]; errors: string[] } {
  const rules: PolicyRule[] = [];
  const errors: string[] = [];
  visitRulesFor(source, user, namespace, (_from, rule, error) => {
    if (rule) rules.push(rule);
    if (error !== undefined) errors.push(error);
    return true;
  });
  return { rules, errors };
}

/**
 * kube's RBACAuthorizer.RulesFor, split into resource and non-resource rules. The list is a lower
 * bound when a binding's role is missing: then `incomplete`, with the errors as evaluationError
 * (what a SelfSubjectRulesReview reports).
 */
export function rulesFor(source: RuleSource, user: UserInfo, namespace: string): RulesResult {
  const { rules, errors } = policyRulesFor(source, user, namespace);
  const resourceRules: ResourceRuleInfo[] = [];
  const nonResourceRules: NonResourceRuleInfo[] = [];
  for (const r of rules) {
    if (r.resources?.length) {
      resourceRules.push({
        verbs: [...r.verbs],
        apiGroups: [...(r.apiGroups ?? [])],
        resources: [...r.resources],
        resourceNames: [...(r.resourceNames ?? [])],
      });
    }
    if (r.nonResourceURLs?.length)
      nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
  }
  return { resourceRules, nonResourceRules, incomplete: errors.length > 0, evaluationError: aggregateErrors(errors) };
}

/** The RBAC authorizer over a source, as the `Authorizer` the server chains. */
export function rbacAuthorizer(source: RuleSource): Authorizer {
  return {
    authorize: (attrs) => authorize(source, attrs),
    rulesFor: (user, namespace) => rulesFor(source, user, namespace),
  };
}
