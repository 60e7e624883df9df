// Whether one PolicyRule allows one request, and whether one binding subject is the requesting
// user: kube's rbac.go RuleAllows with the helpers of pkg/apis/rbac/v1/evaluation_helpers.go, and
// appliesToUser of pkg/registry/rbac/validation/rule.go.
import type { AuthorizationAttributes } from '../authorization.js';
import { type UserInfo, makeServiceAccountUsername } from '../user.js';
import {
  API_GROUP_ALL,
  GROUP_KIND,
  NON_RESOURCE_ALL,
  type PolicyRule,
  RESOURCE_ALL,
  SERVICE_ACCOUNT_KIND,
  type Subject,
  USER_KIND,
  VERB_ALL,
} from './types.js';

const list = (v: readonly string[] | undefined): readonly string[] => v ?? [];

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return list(rule.verbs).some((v) => v === VERB_ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return list(rule.apiGroups).some((g) => g === API_GROUP_ALL || g === group);
}

// `combined` is `resource` or `resource/subresource`. A rule names `*`, the exact combination, or
// `*/sub` for one subresource of every resource; `pods/*` is no wildcard (kube matches it literally).
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  return list(rule.resources).some(
    (r) =>
      r === RESOURCE_ALL ||
      r === combined ||
      (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)),
  );
}

/**
 * No resourceNames allows every name; otherwise the request's name must be listed. A create or a
 * list has no name (''), so a rule with resourceNames never allows them (as in kube).
 */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = list(rule.resourceNames);
  return names.length === 0 || names.includes(name);
}

/** `*` matches every path; a URL ending in `*` matches by prefix (`/apis/*` matches `/apis/x/y`). */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return list(rule.nonResourceURLs).some(
    (u) => u === NON_RESOURCE_ALL || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))),
  );
}

/** kube's RuleAllows. */
export function ruleAllows(attrs: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.resourceRequest) return nonResourceURLMatches(rule, attrs.path);
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return (
    apiGroupMatches(rule, attrs.apiGroup) &&
    resourceMatches(rule, combined, attrs.subresource) &&
    resourceNameMatches(rule, attrs.name)
  );
}

/**
 * Whether `subject` of a binding in `bindingNamespace` ('' for a ClusterRoleBinding) is `user`. A
 * ServiceAccount subject without a namespace means the binding's own; in a ClusterRoleBinding it
 * matches no one.
 */
export function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case USER_KIND:
      return user.name === subject.name;
    case GROUP_KIND:
      return user.groups.includes(subject.name);
    case SERVICE_ACCOUNT_KIND: {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.name === makeServiceAccountUsername(namespace, subject.name);
    }
    default:
      return false;
  }
}

/** The index of the first subject that is `user`, or -1 (kube's appliesTo over a binding's subjects). */
export function firstApplyingSubject(user: UserInfo, subjects: readonly Subject[], bindingNamespace: string): number {
  return subjects.findIndex((s) => appliesTo(user, s, bindingNamespace));
}
