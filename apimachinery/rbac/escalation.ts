// Privilege escalation prevention: a user may only write a role, or bind one, whose rules they
// already hold (pkg/registry/rbac/validation ConfirmNoEscalation over component-helpers' Covers),
// unless they may `escalate` roles or `bind` that role (pkg/registry/rbac/escalation_check.go).
import type { Authorizer } from '../authorization.js';
import { goQuote } from '../quote.js';
import { SYSTEM_PRIVILEGED_GROUP, type UserInfo } from '../user.js';
import { compareGoStrings } from '../go-sort.js';
import { aggregateErrors } from '../errors.js';
import { deepEqual } from '../equality.js';
import { policyRulesFor, type RuleSource } from './authorizer.js';
import { API_GROUP_ALL, type PolicyRule, RESOURCE_ALL, type RoleRef, VERB_ALL } from './types.js';
import { appendAll } from '../append.js';

const list = (v: readonly string[] | undefined): readonly string[] => v ?? [];

/** kube's BreakdownRule: one rule per group × resource × verb (× name), and per URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of list(rule.apiGroups)) {
    for (const resource of list(rule.resources)) {
      for (const verb of list(rule.verbs)) {
        const names = list(rule.resourceNames);
        if (names.length)
          for (const name of names)
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of list(rule.nonResourceURLs))
    for (const verb of list(rule.verbs)) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourceCoversAll(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.includes(RESOURCE_ALL) || hasAll(owned, wanted)) return true;
  return wanted.every((path) => {
    if (owned.includes(path)) return true;
    const slash = path.indexOf('/');
    // A subresource is covered by `*/sub`; a plain resource only by itself or `*`.
    return slash >= 0 && owned.includes(`*/${path.slice(slash + 1)}`);
  });
}

const nonResourceURLCovers = (owner: string, path: string): boolean =>
  owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));

/** kube's ruleCovers: whether one owner rule covers one broken-down rule. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = list(owner.verbs);
  const groups = list(owner.apiGroups);
  const ownerNames = list(owner.resourceNames);
  const subNames = list(sub.resourceNames);
  const verbOK = verbs.includes(VERB_ALL) || hasAll(verbs, list(sub.verbs));
  const groupOK = groups.includes(API_GROUP_ALL) || hasAll(groups, list(sub.apiGroups));
  const resourceOK = resourceCoversAll(list(owner.resources), list(sub.resources));
  const urlOK = list(sub.nonResourceURLs).every((p) =>
    list(owner.nonResourceURLs).some((o) => nonResourceURLCovers(o, p)),
  );
  // An owner limited to names never covers a request for every name.
  const nameOK =
    subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbOK && groupOK && resourceOK && nameOK && urlOK;
}

/**
 * A rule held as it is covers every piece of its breakdown (unless it names both resources and URLs,
 * whose URL pieces ruleCovers refuses to a rule with names): its breakdown is skipped, which is most
 * of a restart's bootstrap reconciliation, every default role being stored as the policy has it.
 */
const heldAsIs = (ownerRules: readonly PolicyRule[], rule: PolicyRule): boolean =>
  !(list(rule.resourceNames).length && list(rule.nonResourceURLs).length) && ownerRules.some((o) => deepEqual(o, rule));

/** kube's Covers: the broken-down requested rules no owner rule covers (none: covered). */
export function uncoveredRules(ownerRules: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  return requested
    .filter((rule) => !heldAsIs(ownerRules, rule))
    .flatMap(breakdownRule)
    .filter((sub) => !ownerRules.some((o) => ruleCovers(o, sub)));
}

export const covers = (ownerRules: readonly PolicyRule[], requested: readonly PolicyRule[]): boolean =>
  uncoveredRules(ownerRules, requested).length === 0;

/**
 * kube's CompactRules: rules of one group and one resource, with nothing but verbs, merged into
 * one rule with all their verbs; the others as they are.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      !list(r.resourceNames).length &&
      !list(r.nonResourceURLs).length &&
      list(r.apiGroups).length === 1 &&
      list(r.resources).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0]]);
    const existing = simple.get(key);
    if (existing) appendAll(existing.verbs, r.verbs);
    else simple.set(key, { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
const goQuoteList = (values: readonly string[]): string => `[${values.map(goQuote).join(' ')}]`;

/** kube's CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, empty fields left out. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, v: readonly string[] | undefined): void => {
    if (v?.length) parts.push(`${label}:${goQuoteList(v)}`);
  };
  add('APIGroups', r.apiGroups);
  add('Resources', r.resources);
  add('NonResourceURLs', r.nonResourceURLs);
  add('ResourceNames', r.resourceNames);
  add('Verbs', r.verbs);
  return `{${parts.join(', ')}}`;
}

/**
 * The message of ConfirmNoEscalation's error when `ownerRules` do not cover `requested`, or
 * undefined when they do. `resolutionError` is the owner's rule resolution error (a binding to a
 * missing role), which kube appends. The caller answers with a Forbidden on the object.
 */
export function escalationMessage(
  user: UserInfo,
  ownerRules: readonly PolicyRule[],
  requested: readonly PolicyRule[],
  resolutionError = '',
): string | undefined {
  const missing = uncoveredRules(ownerRules, requested);
  if (missing.length === 0) return undefined;
  // sets.NewString(...).List(): unique and in Go's byte order.
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort(compareGoStrings);
  let msg = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (resolutionError) msg += `; resolution errors: [${resolutionError}]`;
  return msg;
}

/** ConfirmNoEscalation against what `source` grants the user in `namespace` ('' for cluster-scoped writes). */
export function confirmNoEscalation(
  source: RuleSource,
  user: UserInfo,
  namespace: string,
  requested: readonly PolicyRule[],
): string | undefined {
  const owned = policyRulesFor(source, user, namespace);
  return escalationMessage(user, owned.rules, requested, aggregateErrors(owned.errors));
}

/** kube's EscalationAllowed: system:masters may write any role (the server's own loopback is one). */
export const escalationAllowed = (user: UserInfo): boolean => user.groups.includes(SYSTEM_PRIVILEGED_GROUP);

/** The role being written, as kube's RoleEscalationAuthorized reads it from the request info. */
interface RoleRequest {
  apiGroup: string;
  /** `roles` or `clusterroles`; anything else is never authorized to escalate. */
  resource: string;
  namespace: string;
  name: string;
}

/** kube's RoleEscalationAuthorized: whether the user may `escalate` this role. */
export function roleEscalationAuthorized(authorizer: Authorizer, user: UserInfo, req: RoleRequest): boolean {
  if (req.apiGroup !== 'rbac.authorization.k8s.io' || (req.resource !== 'roles' && req.resource !== 'clusterroles'))
    return false;
  const decision = authorizer.authorize({
    user,
    verb: 'escalate',
    resourceRequest: true,
    apiGroup: req.apiGroup,
    apiVersion: '*',
    resource: req.resource,
    subresource: '',
    namespace: req.namespace,
    name: req.name,
    path: '',
  });
  return decision.decision === 'allow';
}

/**
 * kube's BindingAuthorized: whether the user may `bind` the referenced role, asked in the
 * binding's namespace ('' for a ClusterRoleBinding) so binding may be delegated per namespace.
 */
export function bindingAuthorized(
  authorizer: Authorizer,
  user: UserInfo,
  roleRef: RoleRef,
  bindingNamespace: string,
): boolean {
  let resource: string;
  if (roleRef.kind === 'ClusterRole') resource = 'clusterroles';
  else if (roleRef.kind === 'Role') resource = 'roles';
  else return false;
  const decision = authorizer.authorize({
    user,
    verb: 'bind',
    resourceRequest: true,
    apiGroup: roleRef.apiGroup,
    apiVersion: '',
    resource,
    subresource: '',
    namespace: bindingNamespace,
    name: roleRef.name,
    path: '',
  });
  return decision.decision === 'allow';
}
