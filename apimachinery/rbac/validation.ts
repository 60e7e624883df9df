// Validation of the four RBAC kinds as pkg/apis/rbac/validation, without the ObjectMeta rules the
// store checks itself (names are path segments: validatePathSegmentName).
import {
  type FieldError,
  GoPrinted,
  child,
  forbidden,
  goQuote,
  goStringSlice,
  index,
  invalid,
  notSupported,
  required,
} from '../field-errors.js';
import { labelSelectorFromMeta, type MetaLabelSelector } from '../selectors/labels.js';
import { isDNS1123Subdomain, isPathSegmentName, isQualifiedName, isValidLabelValue } from '../validation/names.js';
import {
  GROUP_KIND,
  type ClusterRole,
  type PolicyRule,
  RBAC_GROUP,
  type Role,
  type RoleBinding,
  type RoleRef,
  SERVICE_ACCOUNT_KIND,
  type Subject,
  USER_KIND,
} from './types.js';
import { appendAll } from '../append.js';

const list = (v: readonly string[] | null | undefined): readonly string[] => v ?? [];

/** Go's %#v of a []string, as kube prints the bad value of nonResourceURLs. */
/** ValidatePolicyRule. */
function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (list(rule.verbs).length === 0) errs.push(required(child(path, 'verbs'), 'verbs must contain at least one value'));
  const urls = list(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced)
      errs.push(
        invalid(
          child(path, 'nonResourceURLs'),
          goStringSlice(urls),
          'namespaced rules cannot apply to non-resource URLs',
        ),
      );
    if (list(rule.apiGroups).length || list(rule.resources).length || list(rule.resourceNames).length) {
      errs.push(
        invalid(
          child(path, 'nonResourceURLs'),
          goStringSlice(urls),
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
    return errs;
  }
  if (list(rule.apiGroups).length === 0)
    errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (list(rule.resources).length === 0)
    errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  if (list(rule.resourceNames).length > 0 && list(rule.resources).length > 1) {
    errs.push(required(child(path, 'resourceNames'), 'resource names cannot apply to multiple resources'));
  }
  return errs;
}

const rulesErrors = (rules: readonly PolicyRule[] | null | undefined, namespaced: boolean): FieldError[] =>
  (rules ?? []).flatMap((r, i) => validatePolicyRule(r, namespaced, index('rules', i)));

/** ValidateRole. */
export const validateRole = (role: Role): FieldError[] => rulesErrors(role.rules, true);

interface ClusterRoleValidationOptions {
  /** Kept on update when the stored role already had such a value (kube's ratcheting). */
  allowInvalidLabelValueInSelector?: boolean;
}

/** metav1validation.ValidateLabelSelector. */
export function validateLabelSelector(
  sel: MetaLabelSelector,
  allowInvalidLabelValue: boolean,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const labelsPath = child(path, 'matchLabels');
  for (const [k, v] of Object.entries(sel.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(labelsPath, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(labelsPath, v, msg));
  }
  (sel.matchExpressions ?? []).forEach((expr, i) => {
    const at = index(child(path, 'matchExpressions'), i);
    const values = expr.values ?? [];
    if (expr.operator === 'In' || expr.operator === 'NotIn') {
      if (values.length === 0)
        errs.push(required(child(at, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (expr.operator === 'Exists' || expr.operator === 'DoesNotExist') {
      if (values.length > 0)
        errs.push(forbidden(child(at, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(invalid(child(at, 'operator'), expr.operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(expr.key)) errs.push(invalid(child(at, 'key'), expr.key, msg));
    if (!allowInvalidLabelValue)
      values.forEach((v, j) =>
        isValidLabelValue(v).forEach((msg) => errs.push(invalid(index(child(at, 'values'), j), v, msg))),
      );
  });
  return errs;
}

/** Whether any selector of the role's aggregationRule has a value that is not a valid label value. */
function hasInvalidLabelValueInSelectors(role: ClusterRole): boolean {
  return (role.aggregationRule?.clusterRoleSelectors ?? []).some((s) =>
    (s.matchExpressions ?? []).some((e) => (e.values ?? []).some((v) => isValidLabelValue(v).length > 0)),
  );
}

/** ValidateClusterRole. */
export function validateClusterRole(role: ClusterRole, opts: ClusterRoleValidationOptions = {}): FieldError[] {
  const errs = rulesErrors(role.rules, false);
  const rule = role.aggregationRule;
  if (rule) {
    const selectors = rule.clusterRoleSelectors ?? [];
    const path = 'aggregationRule.clusterRoleSelectors';
    if (selectors.length === 0)
      errs.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((sel, i) => {
      const at = index(path, i);
      appendAll(errs, validateLabelSelector(sel, opts.allowInvalidLabelValueInSelector ?? false, at));
      try {
        labelSelectorFromMeta(sel);
      } catch {
        // kube reports the failed conversion too, with the nil selector it got as the value.
        errs.push(invalid(at, null, 'invalid label selector.'));
      }
    });
  }
  return errs;
}

/** ValidateClusterRoleUpdate's own part: the stored role's invalid selector values may stay. */
export const validateClusterRoleUpdate = (role: ClusterRole, old: ClusterRole): FieldError[] =>
  validateClusterRole(role, { allowInvalidLabelValueInSelector: hasInvalidLabelValueInSelectors(old) });

function validateSubject(s: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = s.name ?? '';
  const apiGroup = s.apiGroup ?? '';
  if (name === '') errs.push(required(child(path, 'name'), ''));
  switch (s.kind) {
    case SERVICE_ACCOUNT_KIND:
      if (name !== '') for (const msg of isDNS1123Subdomain(name)) errs.push(invalid(child(path, 'name'), name, msg));
      if (apiGroup !== '') errs.push(notSupported(child(path, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && !s.namespace) errs.push(required(child(path, 'namespace'), ''));
      break;
    case USER_KIND:
      if (name === '') errs.push(invalid(child(path, 'name'), name, 'user name cannot be empty'));
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(child(path, 'apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    case GROUP_KIND:
      if (name === '') errs.push(invalid(child(path, 'name'), name, 'group name cannot be empty'));
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(child(path, 'apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(child(path, 'kind'), s.kind ?? '', [SERVICE_ACCOUNT_KIND, USER_KIND, GROUP_KIND]));
  }
  return errs;
}

function validateBinding(binding: RoleBinding, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref: Partial<RoleRef> = binding.roleRef ?? {};
  const apiGroup = ref.apiGroup ?? '';
  const kind = ref.kind ?? '';
  const name = ref.name ?? '';
  if (apiGroup !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(notSupported('roleRef.kind', kind, kinds));
  if (name === '') errs.push(required('roleRef.name', ''));
  else for (const msg of isPathSegmentName(name)) errs.push(invalid('roleRef.name', name, msg));
  (binding.subjects ?? []).forEach((s, i) => appendAll(errs, validateSubject(s, namespaced, index('subjects', i))));
  return errs;
}

/** ValidateRoleBinding: a Role or ClusterRole; ServiceAccount subjects default to the binding's namespace. */
export const validateRoleBinding = (b: RoleBinding): FieldError[] => validateBinding(b, true);
/** ValidateClusterRoleBinding: only ClusterRoles; ServiceAccount subjects need a namespace. */
export const validateClusterRoleBinding = (b: RoleBinding): FieldError[] => validateBinding(b, false);

/** Go's %#v of the internal rbac.RoleRef, the bad value kube prints for a changed roleRef. */
const goRoleRef = (r: Partial<RoleRef>): GoPrinted =>
  new GoPrinted(
    `rbac.RoleRef{APIGroup:${goQuote(r.apiGroup ?? '')}, Kind:${goQuote(r.kind ?? '')}, Name:${goQuote(r.name ?? '')}}`,
  );

/** The update rule both binding kinds share: the role a binding grants never changes. */
function roleRefImmutable(b: RoleBinding, old: RoleBinding): FieldError[] {
  const a: Partial<RoleRef> = b.roleRef ?? {};
  const o: Partial<RoleRef> = old.roleRef ?? {};
  const same =
    (a.apiGroup ?? '') === (o.apiGroup ?? '') && (a.kind ?? '') === (o.kind ?? '') && (a.name ?? '') === (o.name ?? '');
  return same ? [] : [invalid('roleRef', goRoleRef(a), 'cannot change roleRef')];
}

export const validateRoleBindingUpdate = (b: RoleBinding, old: RoleBinding): FieldError[] => [
  ...validateRoleBinding(b),
  ...roleRefImmutable(b, old),
];
export const validateClusterRoleBindingUpdate = (b: RoleBinding, old: RoleBinding): FieldError[] => [
  ...validateClusterRoleBinding(b),
  ...roleRefImmutable(b, old),
];
