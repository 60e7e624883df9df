// Which webhooks a request is for, as kube decides it (k8s.io/apiserver/pkg/admission/plugin/
// webhook): predicates/rules (operations, groups, versions, resources with subresources, scope),
// matchPolicy, predicates/namespace and predicates/object (label selectors), and the exemption of
// the webhook configuration kinds themselves. Pure: the namespace's labels are looked up by the
// caller and passed in.
import { internalError, type Qualified } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import {
  type LabelSelector,
  type MetaLabelSelector,
  labelSelectorFromMeta,
  matchesLabels,
} from '../../apimachinery/selectors/labels.js';
import type { Operation } from '../interface.js';
import { ADMISSION_GROUP, type RuleWithOperations } from './types.js';

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** What rule matching reads of a request. */
export interface RuleAttributes {
  operation: Operation;
  resource: GroupVersionResource;
  subresource: string;
  /** "" for cluster-scoped resources; a namespace object's own requests say its name (kube's request info). */
  namespace: string;
}

const isNamespaceResource = (r: GroupVersionResource): boolean => r.group === '' && r.resource === 'namespaces';

const exactOrWildcard = (items: readonly string[] | undefined, requested: string): boolean =>
  (items ?? []).some((item) => item === '*' || item === requested);

/** rules.Matcher.scope: a namespace object is cluster-scoped whatever namespace its request names. */
export function scopeMatches(scope: string | undefined, a: Pick<RuleAttributes, 'resource' | 'namespace'>): boolean {
  if (scope === undefined || scope === '*') return true;
  if (scope === 'Namespaced') return !isNamespaceResource(a.resource) && a.namespace !== '';
  if (scope === 'Cluster') return isNamespaceResource(a.resource) || a.namespace === '';
  return false;
}

/** rules.Matcher.resource: `res`, `res/sub`, `*`, `*\/sub`, `res/*`, `*\/*`. */
export function resourceMatches(
  resources: readonly string[] | undefined,
  resource: string,
  subresource: string,
): boolean {
  for (const item of resources ?? []) {
    const slash = item.indexOf('/');
    const res = slash < 0 ? item : item.slice(0, slash);
    const sub = slash < 0 ? '' : item.slice(slash + 1);
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

/** rules.Matcher.Matches; `ignoreVersion` for our approximation of matchPolicy Equivalent. */
export function ruleMatches(rule: RuleWithOperations, a: RuleAttributes, ignoreVersion = false): boolean {
  return (
    scopeMatches(rule.scope, a) &&
    exactOrWildcard(rule.operations, a.operation) &&
    exactOrWildcard(rule.apiGroups, a.resource.group) &&
    (ignoreVersion ? (rule.apiVersions ?? []).length > 0 : exactOrWildcard(rule.apiVersions, a.resource.version)) &&
    resourceMatches(rule.resources, a.resource.resource, a.subresource)
  );
}

/**
 * How a webhook's rules take the request: `exact` when one rule matches it as it is; `equivalent`
 * when matchPolicy is Equivalent (the default) and a rule names the same group and resource in
 * another version; undefined otherwise. kube's Equivalent also covers a resource served by other
 * groups (deployments in extensions and apps) and converts the object to the rule's version; we
 * know neither the other groups nor other versions' schemas, so an equivalent match is sent the
 * object in the request's version.
 */
export function matchRules(
  rules: readonly RuleWithOperations[] | undefined,
  matchPolicy: string | undefined,
  a: RuleAttributes,
): 'exact' | 'equivalent' | undefined {
  if ((rules ?? []).some((r) => ruleMatches(r, a))) return 'exact';
  if ((matchPolicy ?? 'Equivalent') === 'Equivalent' && (rules ?? []).some((r) => ruleMatches(r, a, true)))
    return 'equivalent';
  return undefined;
}

/** rules.IsExemptAdmissionConfigurationResource: kube never calls webhooks for writes of their own configuration. */
export function isExemptAdmissionConfigurationResource(kind: Qualified): boolean {
  return (
    kind.group === ADMISSION_GROUP &&
    [
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
      'MutatingAdmissionPolicy',
      'MutatingAdmissionPolicyBinding',
    ].includes(kind.name)
  );
}

/** A webhook's selector, parsed (metav1.LabelSelectorAsSelector; absent is `{}`): a bad one is a 500, as kube's GetParsed*Selector. */
export function parseWebhookSelector(s: MetaLabelSelector | undefined): LabelSelector {
  try {
    return labelSelectorFromMeta(s ?? {});
  } catch (err) {
    throw internalError(new Error(err instanceof Error ? err.message : String(err)));
  }
}

export const selectsEverything = (s: LabelSelector): boolean => !s.matchesNothing && s.requirements.length === 0;

/** predicates/object: the new or the old object's labels must match (neither, when there is no object). */
export function objectSelectorMatches(
  selector: LabelSelector,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
): boolean {
  if (selectsEverything(selector)) return true;
  const matches = (o: KubeObject | undefined): boolean =>
    o !== undefined && o !== null && matchesLabels(selector, (o.metadata?.labels ?? {}) as Record<string, string>);
  return matches(object) || matches(oldObject);
}

/**
 * predicates/namespace: whose labels a namespaceSelector is matched against. `undefined`: the
 * request is about a cluster-scoped object other than a namespace, which always matches. A
 * create or update of a namespace itself uses the labels of the object being written (the store
 * does not have them yet); everything else names the namespace to look up.
 */
export function namespaceLabelSource(
  a: RuleAttributes & { object?: KubeObject | undefined; name: string },
): { labels: Record<string, string> } | { lookup: string } | undefined {
  const isNamespace = isNamespaceResource(a.resource);
  const namespace = a.namespace || (isNamespace ? a.name : '');
  if (namespace === '' && !isNamespace) return undefined;
  if (isNamespace && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE')) {
    return { labels: (a.object?.metadata?.labels ?? {}) as Record<string, string> };
  }
  return { lookup: namespace };
}
