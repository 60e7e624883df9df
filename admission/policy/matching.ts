// Which requests a policy or binding applies to, as kube's generic policy matcher
// (k8s.io/apiserver/pkg/admission/plugin/policy/matching and webhook/predicates: rules, namespace,
// object): namespaceSelector, objectSelector, excludeResourceRules, resourceRules (operations,
// groups, versions, resources with `*` and `res/sub`, scope, resourceNames) and matchPolicy
// Equivalent through an injected equivalent-resource mapper.
import { ApiError, internalError, notFound } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import {
  type LabelSelector,
  type MetaLabelSelector,
  labelSelectorFromMeta,
  matchesLabels,
} from '../../apimachinery/selectors/labels.js';
import type { Attributes } from '../interface.js';
import type { GroupVersionKind, GroupVersionResource } from '../webhook/rules.js';
import type { MatchResources, NamedRuleWithOperations } from './types.js';

export type { GroupVersionKind, GroupVersionResource };

/** A request as the matcher sees it: the attributes and the versions they lack. */
export interface MatchRequest {
  a: Attributes;
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

/** kube's EquivalentResourceMapper: the same resource in other groups/versions, and their kinds. */
export interface EquivalentResources {
  equivalentResourcesFor(resource: GroupVersionResource, subresource: string): GroupVersionResource[];
  kindFor(resource: GroupVersionResource, subresource: string): GroupVersionKind | undefined;
}

export type NamespaceGetter = (name: string) => Promise<KubeObject | undefined>;

interface MatchResult {
  matches: boolean;
  /** The resource and kind the rule matched (an equivalent one under matchPolicy Equivalent). */
  resource: GroupVersionResource;
  kind: GroupVersionKind;
}

const NAMESPACES = 'namespaces';

function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.resource === NAMESPACES;
}

function parsedSelector(s: MetaLabelSelector | undefined): LabelSelector | undefined {
  // A nil selector in a stored policy is defaulted to {} (everything).
  if (!s) return undefined;
  if (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0) return undefined;
  try {
    return labelSelectorFromMeta(s);
  } catch (e) {
    throw internalError(new Error(e instanceof Error ? e.message : String(e)));
  }
}

/** kube's rules.Matcher over one rule. */
export function ruleMatches(rule: NamedRuleWithOperations, a: Attributes, resource: GroupVersionResource): boolean {
  const any = (list: readonly string[] | undefined, v: string): boolean =>
    (list ?? []).some((x) => x === '*' || x === v);
  if (!any(rule.operations, a.operation)) return false;
  if (!any(rule.apiGroups, resource.group)) return false;
  if (!any(rule.apiVersions, resource.version)) return false;
  const resOk = (rule.resources ?? []).some((rs) => {
    const i = rs.indexOf('/');
    const res = i < 0 ? rs : rs.slice(0, i);
    const sub = i < 0 ? '' : rs.slice(i + 1);
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === a.subresource);
  });
  if (!resOk) return false;
  const scope = rule.scope ?? '*';
  if (scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespaceResource(resource) && a.namespace !== '';
  if (scope === 'Cluster') return isNamespaceResource(resource) || a.namespace === '';
  return false;
}

function matchesRules(
  rules: readonly NamedRuleWithOperations[] | undefined,
  matchPolicy: string | undefined,
  req: MatchRequest,
  eq: EquivalentResources | undefined,
): MatchResult {
  const no: MatchResult = { matches: false, resource: req.resource, kind: req.kind };
  const named = (r: NamedRuleWithOperations): boolean =>
    !r.resourceNames || r.resourceNames.length === 0 || r.resourceNames.includes(req.a.name);
  for (const r of rules ?? []) {
    if (ruleMatches(r, req.a, req.resource) && named(r))
      return { matches: true, resource: req.resource, kind: req.kind };
  }
  // Stored policies have matchPolicy defaulted to Equivalent.
  if ((matchPolicy ?? 'Equivalent') === 'Exact' || !eq) return no;
  const equivalents = eq.equivalentResourcesFor(req.resource, req.a.subresource);
  for (const r of rules ?? []) {
    for (const e of equivalents) {
      if (e.group === req.resource.group && e.version === req.resource.version && e.resource === req.resource.resource)
        continue;
      if (!ruleMatches(r, req.a, e)) continue;
      const kind = eq.kindFor(e, req.a.subresource);
      if (!kind)
        throw internalError(
          new Error(
            `unable to convert to ${e.group ? `${e.group}/` : ''}${e.version}, Resource=${e.resource}: unknown kind`,
          ),
        );
      if (named(r)) return { matches: true, resource: e, kind };
    }
  }
  return no;
}

async function namespaceLabels(
  req: MatchRequest,
  getNamespace: NamespaceGetter,
): Promise<Record<string, string> | undefined> {
  const a = req.a;
  if (
    isNamespaceResource(req.resource) &&
    a.subresource === '' &&
    (a.operation === 'CREATE' || a.operation === 'UPDATE')
  ) {
    return a.object?.metadata.labels ?? {};
  }
  const name = isNamespaceResource(req.resource) ? a.namespace || a.name : a.namespace;
  const ns = await getNamespace(name);
  if (!ns) throw notFound({ group: '', name: NAMESPACES }, name);
  return ns.metadata.labels ?? {};
}

async function matchNamespaceSelector(
  m: MatchResources,
  req: MatchRequest,
  getNamespace: NamespaceGetter,
): Promise<{ matches: boolean; err?: ApiError }> {
  try {
    if (req.a.namespace === '' && !isNamespaceResource(req.resource)) return { matches: true };
    const sel = parsedSelector(m.namespaceSelector);
    if (!sel) return { matches: true };
    const labels = await namespaceLabels(req, getNamespace);
    return { matches: matchesLabels(sel, labels) };
  } catch (e) {
    return { matches: false, err: e instanceof ApiError ? e : internalError(e) };
  }
}

function matchObjectSelector(m: MatchResources, req: MatchRequest): { matches: boolean; err?: ApiError } {
  try {
    const sel = parsedSelector(m.objectSelector);
    if (!sel) return { matches: true };
    const one = (o: KubeObject | undefined): boolean =>
      o !== undefined && o !== null && matchesLabels(sel, o.metadata?.labels ?? {});
    return { matches: one(req.a.object) || one(req.a.oldObject) };
  } catch (e) {
    return { matches: false, err: e instanceof ApiError ? e : internalError(e) };
  }
}

/** kube's matching.Matcher.Matches: throws the selector errors only when the rules match. */
export async function matches(
  m: MatchResources,
  req: MatchRequest,
  getNamespace: NamespaceGetter,
  eq?: EquivalentResources,
): Promise<MatchResult> {
  const no: MatchResult = { matches: false, resource: req.resource, kind: req.kind };
  const ns = await matchNamespaceSelector(m, req, getNamespace);
  if (!ns.matches && !ns.err) return no;
  const obj = matchObjectSelector(m, req);
  if (!obj.matches && !obj.err) return no;
  const excluded = matchesRules(m.excludeResourceRules, m.matchPolicy, req, eq);
  if (excluded.matches) return no;
  const r =
    !m.resourceRules || m.resourceRules.length === 0
      ? { matches: true, resource: req.resource, kind: req.kind }
      : matchesRules(m.resourceRules, m.matchPolicy, req, eq);
  if (!r.matches) return no;
  if (ns.err) throw ns.err;
  if (obj.err) throw obj.err;
  return r;
}
