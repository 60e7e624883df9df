// What kube's clusterrole-aggregation controller writes into an aggregated ClusterRole: for each
// selector in order, the matching ClusterRoles by name (itself excluded), each of their rules
// once, in the order first seen.
import { deepEqual } from '../equality.js';
import { labelSelectorFromMeta, matchesLabels } from '../selectors/labels.js';
import { type ClusterRole, type PolicyRule, rulesOf } from './types.js';

/** Semantic.DeepEqual of rules: an absent list equals an empty one. */
function normalized(r: PolicyRule): PolicyRule {
  const out: PolicyRule = { verbs: r.verbs ?? [] };
  if (r.apiGroups?.length) out.apiGroups = r.apiGroups;
  if (r.resources?.length) out.resources = r.resources;
  if (r.resourceNames?.length) out.resourceNames = r.resourceNames;
  if (r.nonResourceURLs?.length) out.nonResourceURLs = r.nonResourceURLs;
  return out;
}

const sameRule = (a: PolicyRule, b: PolicyRule): boolean => deepEqual(normalized(a), normalized(b));

/**
 * sameRule as a key: normalized() writes members in one order and their lists are compared in
 * order, so equal texts are equal rules. admin aggregates edit's hundred-odd rules: a set of keys
 * rather than a search of those taken for each.
 */
const ruleKey = (r: PolicyRule): string => JSON.stringify(normalized(r));

/**
 * The rules `role` should hold, or undefined when it aggregates nothing (no aggregationRule). A
 * selector that does not parse fails the sync in kube; it throws here (the 400 of the selector code).
 */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  const rule = role.aggregationRule;
  if (!rule) return undefined;
  const out: PolicyRule[] = [];
  const taken = new Set<string>();
  const self = role.metadata.name;
  for (const meta of rule.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromMeta(meta);
    // byName: Go compares names as strings, which for these names is JS's ordering too.
    const matched = all
      .filter((r) => matchesLabels(selector, r.metadata.labels))
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    for (const other of matched) {
      if (other.metadata.name === self) continue;
      for (const r of rulesOf(other)) {
        const key = ruleKey(r);
        if (taken.has(key)) continue;
        taken.add(key);
        out.push(r);
      }
    }
  }
  return out;
}

/** Whether the stored rules already are the aggregated ones (the controller then writes nothing). */
export function aggregationUpToDate(role: ClusterRole, all: readonly ClusterRole[]): boolean {
  const want = aggregatedRules(role, all);
  if (want === undefined) return true;
  const have = rulesOf(role);
  return have.length === want.length && have.every((r, i) => sameRule(r, want[i]!));
}

/**
 * What the controller converges to: aggregated roles filled, again and again, until nothing
 * changes (edit aggregates view, admin aggregates edit). Roles are copied, not changed. A cycle
 * of aggregated roles stops after as many rounds as there are roles.
 */
export function aggregateAll(roles: readonly ClusterRole[]): ClusterRole[] {
  let current = roles.map((r) => ({ ...r }));
  for (let round = 0; round <= current.length; round++) {
    let changed = false;
    current = current.map((role) => {
      if (aggregationUpToDate(role, current)) return role;
      changed = true;
      return { ...role, rules: aggregatedRules(role, current) ?? null };
    });
    if (!changed) break;
  }
  return current;
}
