// admissionregistration.k8s.io/v1 as kube's pkg/apis/admissionregistration reads it: the types of
// MutatingWebhookConfiguration, ValidatingWebhookConfiguration, ValidatingAdmissionPolicy and
// ValidatingAdmissionPolicyBinding, their v1 defaults (v1/defaults.go and zz_generated.defaults.go)
// and their validation (validation/validation.go, with k8s.io/apiserver's util/webhook for client
// configs and Go's net/url for webhook URLs), with kube's messages word for word.
//
// CEL is compiled by the caller's compiler (ExpressionCompiler: admission/ has CEL, apimachinery
// does not), called where kube's validation compiles each expression so that its errors come in
// kube's order. Not here: parsing status.typeChecking.expressionWarnings[].fieldRef as a JSONPath.
import {
  type FieldError,
  GoPrinted,
  child,
  goStringSlice,
  duplicate,
  forbidden,
  goQuote,
  index,
  invalid,
  notSupported,
  required,
  tooMany,
} from '../field-errors.js';
import { deepEqual } from '../equality.js';
import { parseGroupVersion } from '../versions.js';
import type { MetaLabelSelector } from '../selectors/labels.js';
import { validateLabelSelector } from '../rbac/validation.js';
import {
  byteLength,
  isDNS1035Label,
  isDNS1123Subdomain,
  isPathSegmentName,
  isQualifiedName,
} from '../validation/names.js';
import { validateWebhookService, validateWebhookURL } from '../validation/webhook.js';
import { isJsonObject } from '../object.js';
import { appendAll } from '../append.js';
import { CEL_RESERVED_WORDS } from '../cel-reserved.js';

export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.k8s.io';

// ---------------------------------------------------------------------------------------------
// Types (admissionregistration/v1), as the JSON of a request holds them: anything may be absent.

interface Rule {
  apiGroups?: string[] | null;
  apiVersions?: string[] | null;
  resources?: string[] | null;
  scope?: string | null;
}
export interface RuleWithOperations extends Rule {
  operations?: string[] | null;
}
export interface NamedRuleWithOperations extends RuleWithOperations {
  resourceNames?: string[] | null;
}
interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string | null;
  port?: number | null;
}
interface WebhookClientConfig {
  url?: string | null;
  service?: ServiceReference | null;
  caBundle?: string | null;
}
export interface MatchCondition {
  name?: string;
  expression?: string;
}
export interface Webhook {
  name?: string;
  clientConfig?: WebhookClientConfig | null;
  rules?: RuleWithOperations[] | null;
  failurePolicy?: string | null;
  matchPolicy?: string | null;
  namespaceSelector?: MetaLabelSelector | null;
  objectSelector?: MetaLabelSelector | null;
  sideEffects?: string | null;
  timeoutSeconds?: number | null;
  admissionReviewVersions?: string[] | null;
  matchConditions?: MatchCondition[] | null;
  /** MutatingWebhook only. */
  reinvocationPolicy?: string | null;
}
export interface WebhookConfiguration {
  metadata: { name?: string };
  webhooks?: Webhook[] | null;
}
export interface MatchResources {
  namespaceSelector?: MetaLabelSelector | null;
  objectSelector?: MetaLabelSelector | null;
  resourceRules?: NamedRuleWithOperations[] | null;
  excludeResourceRules?: NamedRuleWithOperations[] | null;
  matchPolicy?: string | null;
}
export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}
interface Validation {
  expression?: string;
  message?: string;
  reason?: string | null;
  messageExpression?: string;
}
interface AuditAnnotation {
  key?: string;
  valueExpression?: string;
}
interface Variable {
  name?: string;
  expression?: string;
}
export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind | null;
  matchConstraints?: MatchResources | null;
  validations?: Validation[] | null;
  failurePolicy?: string | null;
  auditAnnotations?: AuditAnnotation[] | null;
  matchConditions?: MatchCondition[] | null;
  variables?: Variable[] | null;
}
export interface ExpressionWarning {
  fieldRef?: string;
  warning?: string;
}
interface Condition {
  type?: string;
  status?: string;
  observedGeneration?: number;
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}
export interface ValidatingAdmissionPolicyStatus {
  observedGeneration?: number;
  typeChecking?: { expressionWarnings?: ExpressionWarning[] | null } | null;
  conditions?: Condition[] | null;
}
export interface ValidatingAdmissionPolicy {
  metadata: { name?: string };
  spec?: ValidatingAdmissionPolicySpec;
  status?: ValidatingAdmissionPolicyStatus;
}
interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: MetaLabelSelector | null;
  parameterNotFoundAction?: string | null;
}
export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef | null;
  matchResources?: MatchResources | null;
  validationActions?: string[] | null;
}
export interface ValidatingAdmissionPolicyBinding {
  metadata: { name?: string };
  spec?: ValidatingAdmissionPolicyBindingSpec;
}

/**
 * One of the types above as a stored object holds it: defaulting (dropNulls) removed every JSON
 * null, so no field is null. What the admission engines read configurations and policies as.
 */
export type Stored<T> = T extends readonly (infer E)[]
  ? Stored<E>[]
  : T extends object
    ? { [K in keyof T]: Stored<Exclude<T[K], null>> }
    : T;

// ---------------------------------------------------------------------------------------------
// Enumerations, each listed as kube's sets.String.List() prints it: sorted.

export const FAILURE_POLICIES = ['Fail', 'Ignore'] as const;
const MATCH_POLICIES = ['Equivalent', 'Exact'] as const;
const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown'] as const;
const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'] as const;
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'] as const;
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'] as const;
const SCOPES = ['*', 'Cluster', 'Namespaced'] as const;
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'] as const;
const VALIDATION_POLICY_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'] as const;
const PARAMETER_NOT_FOUND_ACTIONS = ['Deny', 'Allow'] as const;
/** AcceptedAdmissionReviewVersions: what the server (and the one before it) understands. */
const ACCEPTED_ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
const CONDITION_STATUSES = ['False', 'True', 'Unknown'] as const;

/** The most matchConditions a webhook or policy may have. */
const MAX_MATCH_CONDITIONS = 64;
/** The v1 default of a webhook's timeoutSeconds. */
export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 10;
/** The longest timeoutSeconds a webhook may have. */
export const MAX_WEBHOOK_TIMEOUT_SECONDS = 30;
/** maxAuditAnnotations. */
const MAX_AUDIT_ANNOTATIONS = 20;
/** maxAuditAnnotationValueExpressionLength: 5 KiB. */
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024;

// ---------------------------------------------------------------------------------------------
// Small readers: request JSON may hold anything where a list or string belongs.

const list = <T>(v: readonly T[] | null | undefined): readonly T[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const has = (set: readonly string[], v: unknown): boolean => typeof v === 'string' && set.includes(v);

/** Go's %#v of a []T of strings: `[]string{"a", "b"}`. */
// ---------------------------------------------------------------------------------------------
// Defaults (admissionregistration/v1 SetDefaults_*, applied as the generated defaulters apply them).

function defaultRule(rule: unknown): void {
  if (isJsonObject(rule) && rule['scope'] == null) rule['scope'] = '*';
}

function defaultSelector(obj: Record<string, unknown>, field: string): void {
  if (obj[field] == null) obj[field] = {};
}

/** SetDefaults_MutatingWebhook or SetDefaults_ValidatingWebhook, with its rules and service. */
function defaultWebhook(hook: unknown, mutating: boolean): void {
  if (!isJsonObject(hook)) return;
  if (hook['failurePolicy'] == null) hook['failurePolicy'] = 'Fail';
  if (hook['matchPolicy'] == null) hook['matchPolicy'] = 'Equivalent';
  defaultSelector(hook, 'namespaceSelector');
  defaultSelector(hook, 'objectSelector');
  if (hook['timeoutSeconds'] == null) hook['timeoutSeconds'] = DEFAULT_WEBHOOK_TIMEOUT_SECONDS;
  if (mutating && hook['reinvocationPolicy'] == null) hook['reinvocationPolicy'] = 'Never';
  const cc = hook['clientConfig'];
  if (isJsonObject(cc) && isJsonObject(cc['service']) && cc['service']['port'] == null) cc['service']['port'] = 443;
  for (const rule of list(hook['rules'] as unknown[])) defaultRule(rule);
}

/** SetObjectDefaults_MutatingWebhookConfiguration and its validating twin. */
export function defaultWebhookConfiguration(obj: Record<string, unknown>, mutating: boolean): void {
  dropNulls(obj, 'webhooks');
  // An empty list is omitted, as kube's omitempty encodes it.
  if (Array.isArray(obj['webhooks']) && obj['webhooks'].length === 0) delete obj['webhooks'];
  for (const hook of list(obj['webhooks'] as unknown[])) defaultWebhook(hook, mutating);
}

/** SetDefaults_MatchResources with its rules. */
function defaultMatchResources(mr: unknown): void {
  if (!isJsonObject(mr)) return;
  if (mr['matchPolicy'] == null) mr['matchPolicy'] = 'Equivalent';
  defaultSelector(mr, 'namespaceSelector');
  defaultSelector(mr, 'objectSelector');
  for (const rule of list(mr['resourceRules'] as unknown[])) defaultRule(rule);
  for (const rule of list(mr['excludeResourceRules'] as unknown[])) defaultRule(rule);
}

/** The spec is a struct in Go, not a pointer: it is always there, `{}` at the least. */
function specOf(obj: Record<string, unknown>): Record<string, unknown> {
  if (!isJsonObject(obj['spec'])) obj['spec'] = {};
  return obj['spec'] as Record<string, unknown>;
}

/** SetObjectDefaults_ValidatingAdmissionPolicy. */
export function defaultValidatingAdmissionPolicy(obj: Record<string, unknown>): void {
  dropNulls(obj, 'spec');
  dropNulls(obj, 'status');
  const spec = specOf(obj);
  if (spec['failurePolicy'] == null) spec['failurePolicy'] = 'Fail';
  defaultMatchResources(spec['matchConstraints']);
}

/** SetObjectDefaults_ValidatingAdmissionPolicyBinding. */
export function defaultValidatingAdmissionPolicyBinding(obj: Record<string, unknown>): void {
  dropNulls(obj, 'spec');
  defaultMatchResources(specOf(obj)['matchResources']);
}

/**
 * JSON nulls in the kind's own fields decode to Go's nil pointers and empty slices, which kube
 * never writes back (every field is omitempty); a null label value decodes to "".
 */
function dropNulls(obj: Record<string, unknown>, field: string): void {
  if (obj[field] === null) {
    delete obj[field];
    return;
  }
  const stack: unknown[] = [obj[field]];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const e of v) stack.push(e);
    } else if (isJsonObject(v)) {
      for (const [k, e] of Object.entries(v)) {
        if (e === null) delete v[k];
        else if (k === 'matchLabels' && isJsonObject(e)) {
          for (const [lk, lv] of Object.entries(e)) if (lv === null) e[lk] = '';
        } else stack.push(e);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rules

function hasWildcard(v: readonly unknown[]): boolean {
  return v.includes('*');
}

/** validateResources (subresources allowed). */
function validateResources(resources: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path, ''));
  const resourcesWithWildcardSubresources = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  resources.forEach((raw, i) => {
    const resSub = str(raw);
    if (resSub === '') {
      errs.push(required(index(path, i), ''));
      return;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      // kube's quirk, kept: the last resource without a subresource decides.
      hasResourceWithoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resourcesWithWildcardSubresources.has(res))
      errs.push(invalid(index(path, i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subresourcesWithWildcardResource.has(sub))
      errs.push(invalid(index(path, i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') resourcesWithWildcardSubresources.add(res);
    if (res === '*') subresourcesWithWildcardResource.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard)
    errs.push(invalid(path, goStringSlice(resources), "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource) {
    errs.push(
      invalid(
        path,
        goStringSlice(resources),
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return errs;
}

/** validateRule, subresources allowed (as every caller in v1 allows them). */
function validateRule(rule: Rule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const groups = list(rule.apiGroups);
  const versions = list(rule.apiVersions);
  if (groups.length === 0) errs.push(required(child(path, 'apiGroups'), ''));
  if (groups.length > 1 && hasWildcard(groups))
    errs.push(
      invalid(child(path, 'apiGroups'), goStringSlice(groups), "if '*' is present, must not specify other API groups"),
    );
  if (versions.length === 0) errs.push(required(child(path, 'apiVersions'), ''));
  if (versions.length > 1 && hasWildcard(versions))
    errs.push(
      invalid(
        child(path, 'apiVersions'),
        goStringSlice(versions),
        "if '*' is present, must not specify other API versions",
      ),
    );
  versions.forEach((v, i) => {
    if (str(v) === '') errs.push(required(index(child(path, 'apiVersions'), i), ''));
  });
  appendAll(errs, validateResources(list(rule.resources), child(path, 'resources')));
  if (rule.scope != null && !has(SCOPES, rule.scope)) errs.push(notSupported(child(path, 'scope'), rule.scope, SCOPES));
  return errs;
}

/** validateRuleWithOperations. */
function validateRuleWithOperations(rule: RuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = list(rule.operations);
  const opsPath = child(path, 'operations');
  if (ops.length === 0) errs.push(required(opsPath, ''));
  if (ops.length > 1 && hasWildcard(ops))
    errs.push(
      invalid(
        opsPath,
        goStringSlice(ops, 'admissionregistration.OperationType'),
        "if '*' is present, must not specify other operations",
      ),
    );
  ops.forEach((op, i) => {
    if (!has(OPERATIONS, op)) errs.push(notSupported(index(opsPath, i), op, OPERATIONS));
  });
  appendAll(errs, validateRule(rule, path));
  return errs;
}

/** validateNamedRuleWithOperations. */
function validateNamedRuleWithOperations(rule: NamedRuleWithOperations, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list(rule.resourceNames).forEach((raw, i) => {
    const name = str(raw);
    const at = index(child(path, 'resourceNames'), i);
    for (const msg of isPathSegmentName(name)) errs.push(invalid(at, name, msg));
    if (seen.has(name)) errs.push(duplicate(at, name));
    else seen.add(name);
  });
  appendAll(errs, validateRuleWithOperations(rule, path));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Webhooks

/** utilvalidation.IsFullyQualifiedName: a DNS-1123 subdomain of at least three segments. */
function isFullyQualifiedName(path: string, name: string): FieldError[] {
  if (name.length === 0) return [required(path, '')];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3)
    return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** validateAdmissionReviewVersions. */
function validateAdmissionReviewVersions(
  versions: readonly string[],
  requireRecognized: boolean,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  if (versions.length < 1) {
    errs.push(required(path, `must specify one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`));
    return errs;
  }
  const seen = new Set<string>();
  let hasAccepted = false;
  versions.forEach((raw, i) => {
    const v = str(raw);
    if (seen.has(v)) {
      errs.push(invalid(index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(invalid(index(path, i), v, msg));
    if (has(ACCEPTED_ADMISSION_REVIEW_VERSIONS, v)) hasAccepted = true;
  });
  if (requireRecognized && !hasAccepted) {
    errs.push(
      invalid(
        path,
        goStringSlice(versions),
        `must include at least one of ${ACCEPTED_ADMISSION_REVIEW_VERSIONS.join(', ')}`,
      ),
    );
  }
  return errs;
}

/**
 * Compiles a webhook's or a policy's expressions as kube's validation does: each call answers
 * kube's detail for an expression that does not compile (`compilation failed: ERROR: ...`), or
 * undefined. `stored`: the stored object already had the expression, and kube compiles it in its
 * StoredExpressions environment rather than the new expressions' one.
 */
export interface ExpressionCompiler {
  matchCondition(expression: string, stored: boolean): string | undefined;
}

/** A policy's compiler, with state: each variable compiled is declared to what follows. */
export interface PolicyExpressionCompiler extends ExpressionCompiler {
  variable(name: string, expression: string, stored: boolean): string | undefined;
  validation(expression: string, stored: boolean): string | undefined;
  messageExpression(expression: string, stored: boolean): string | undefined;
  auditAnnotation(expression: string, stored: boolean): string | undefined;
}

/** An expression's compile error at `path`, the value reported being `value`. */
function compileError(path: string, value: string, detail: string | undefined): FieldError[] {
  return detail === undefined ? [] : [invalid(path, value, detail)];
}

/** validateMatchConditions; the expressions, trimmed, compiled by `compiler` when there is one. */
function validateMatchConditions(
  conditions: readonly MatchCondition[],
  path: string,
  stored: ReadonlySet<string>,
  compiler: ExpressionCompiler | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((raw, i) => {
    const c = isJsonObject(raw) ? raw : {};
    const at = index(path, i);
    const name = str(c.name);
    const expression = str(c.expression).trim();
    if (expression.length === 0) errs.push(required(child(at, 'expression'), ''));
    else if (compiler !== undefined)
      appendAll(
        errs,
        compileError(child(at, 'expression'), expression, compiler.matchCondition(expression, stored.has(expression))),
      );
    if (name.length === 0) errs.push(required(child(at, 'name'), ''));
    else for (const msg of isQualifiedName(name)) errs.push(invalid(child(at, 'name'), name, msg));
    if (name.length > 0) {
      if (names.has(name)) errs.push(duplicate(child(at, 'name'), name));
      else names.add(name);
    }
  });
  return errs;
}

/** How strictly a write is judged: a create strictly, an update as the stored object allows. */
interface WebhookValidationOptions {
  ignoreMatchConditions: boolean;
  /** The stored object's matchConditions' expressions (findValidatingPreexistingExpressions). */
  storedMatchConditions: ReadonlySet<string>;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

export const STRICT_WEBHOOK_OPTIONS: WebhookValidationOptions = {
  ignoreMatchConditions: false,
  storedMatchConditions: new Set(),
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
};

/** validateMutatingWebhook and validateValidatingWebhook, in kube's order. */
function validateWebhook(
  hook: Webhook,
  mutating: boolean,
  opts: WebhookValidationOptions,
  compiler: ExpressionCompiler | undefined,
  path: string,
): FieldError[] {
  const errs = isFullyQualifiedName(child(path, 'name'), str(hook.name));
  list(hook.rules).forEach((rule, i) =>
    appendAll(errs, validateRuleWithOperations(isJsonObject(rule) ? rule : {}, index(child(path, 'rules'), i))),
  );
  if (hook.failurePolicy != null && !has(FAILURE_POLICIES, hook.failurePolicy))
    errs.push(notSupported(child(path, 'failurePolicy'), hook.failurePolicy, FAILURE_POLICIES));
  if (hook.matchPolicy != null && !has(MATCH_POLICIES, hook.matchPolicy))
    errs.push(notSupported(child(path, 'matchPolicy'), hook.matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECT_CLASSES : SIDE_EFFECT_CLASSES;
  if (hook.sideEffects == null)
    errs.push(required(child(path, 'sideEffects'), `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!has(allowedSideEffects, hook.sideEffects))
    errs.push(notSupported(child(path, 'sideEffects'), hook.sideEffects, allowedSideEffects));
  if (hook.timeoutSeconds != null && (hook.timeoutSeconds > MAX_WEBHOOK_TIMEOUT_SECONDS || hook.timeoutSeconds < 1)) {
    errs.push(
      invalid(
        child(path, 'timeoutSeconds'),
        hook.timeoutSeconds,
        `the timeout value must be between 1 and ${MAX_WEBHOOK_TIMEOUT_SECONDS} seconds`,
      ),
    );
  }
  if (isJsonObject(hook.namespaceSelector))
    appendAll(
      errs,
      validateLabelSelector(
        hook.namespaceSelector,
        opts.allowInvalidLabelValueInSelector,
        child(path, 'namespaceSelector'),
      ),
    );
  if (isJsonObject(hook.objectSelector))
    appendAll(
      errs,
      validateLabelSelector(hook.objectSelector, opts.allowInvalidLabelValueInSelector, child(path, 'objectSelector')),
    );
  if (mutating && hook.reinvocationPolicy != null && !has(REINVOCATION_POLICIES, hook.reinvocationPolicy)) {
    errs.push(notSupported(child(path, 'reinvocationPolicy'), hook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  const cc = isJsonObject(hook.clientConfig) ? hook.clientConfig : {};
  const ccPath = child(path, 'clientConfig');
  if ((cc.url == null) === (cc.service == null))
    errs.push(required(ccPath, 'exactly one of url or service is required'));
  else if (cc.url != null) appendAll(errs, validateWebhookURL(child(ccPath, 'url'), str(cc.url), true));
  else appendAll(errs, validateWebhookService(child(ccPath, 'service'), isJsonObject(cc.service) ? cc.service : {}));
  if (!opts.ignoreMatchConditions)
    appendAll(
      errs,
      validateMatchConditions(
        list(hook.matchConditions),
        child(path, 'matchConditions'),
        opts.storedMatchConditions,
        compiler,
      ),
    );
  return errs;
}

/**
 * validateMutatingWebhookConfiguration / validateValidatingWebhookConfiguration, without
 * ObjectMeta; matchConditions compiled by `compiler` (none: not compiled).
 */
export function validateWebhookConfiguration(
  obj: WebhookConfiguration,
  mutating: boolean,
  opts: WebhookValidationOptions = STRICT_WEBHOOK_OPTIONS,
  compiler?: ExpressionCompiler,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  list(obj.webhooks).forEach((raw, i) => {
    const hook = isJsonObject(raw) ? (raw as Webhook) : {};
    const at = index('webhooks', i);
    appendAll(errs, validateWebhook(hook, mutating, opts, compiler, at));
    appendAll(
      errs,
      validateAdmissionReviewVersions(
        list(hook.admissionReviewVersions),
        opts.requireRecognizedAdmissionReviewVersion,
        child(at, 'admissionReviewVersions'),
      ),
    );
    const name = str(hook.name);
    if (opts.requireUniqueWebhookNames && name.length > 0) {
      if (names.has(name)) errs.push(duplicate(child(at, 'name'), name));
      else names.add(name);
    }
  });
  return errs;
}

/** One string field of each of a list's items (kube's preexisting expressions). */
const expressionsOf = (items: unknown, field: string): string[] =>
  (Array.isArray(items) ? items : []).flatMap((item: unknown) => {
    const v = isJsonObject(item) ? item[field] : undefined;
    return typeof v === 'string' ? [v] : [];
  });

const webhooksOf = (obj: WebhookConfiguration): Webhook[] =>
  list(obj.webhooks).map((h) => (isJsonObject(h) ? (h as Webhook) : {}));

const selectorHasInvalidLabelValue = (sel: unknown): boolean =>
  isJsonObject(sel) && validateLabelSelector(sel, false, '').length > 0;

/** The options ValidateMutatingWebhookConfigurationUpdate (and the validating one) derive from the stored object. */
function webhookUpdateOptions(obj: WebhookConfiguration, old: WebhookConfiguration): WebhookValidationOptions {
  const hooks = webhooksOf(obj);
  const oldHooks = webhooksOf(old);
  const names = oldHooks.map((h) => str(h.name));
  return {
    ignoreMatchConditions:
      hooks.length === oldHooks.length &&
      oldHooks.every((h, i) => deepEqual(hooks[i]!.matchConditions, h.matchConditions)),
    storedMatchConditions: new Set(oldHooks.flatMap((h) => expressionsOf(h.matchConditions, 'expression'))),
    requireNoSideEffects: oldHooks.every((h) => has(NO_SIDE_EFFECT_CLASSES, h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = list(h.admissionReviewVersions);
      return versions.length === 0 || versions.some((v) => has(ACCEPTED_ADMISSION_REVIEW_VERSIONS, v));
    }),
    requireUniqueWebhookNames: new Set(names).size === names.length,
    allowInvalidLabelValueInSelector: oldHooks.some(
      (h) => selectorHasInvalidLabelValue(h.namespaceSelector) || selectorHasInvalidLabelValue(h.objectSelector),
    ),
  };
}

/** ValidateMutatingWebhookConfigurationUpdate / ValidateValidatingWebhookConfigurationUpdate. */
export const validateWebhookConfigurationUpdate = (
  obj: WebhookConfiguration,
  old: WebhookConfiguration,
  mutating: boolean,
  compiler?: ExpressionCompiler,
): FieldError[] => validateWebhookConfiguration(obj, mutating, webhookUpdateOptions(obj, old), compiler);

// ---------------------------------------------------------------------------------------------
// ValidatingAdmissionPolicy and its binding

/** validateMatchResources. */
function validateMatchResources(given: MatchResources | null | undefined, path: string): FieldError[] {
  if (given == null || !isJsonObject(given)) return [];
  const mr: MatchResources = given;
  const errs: FieldError[] = [];
  if (mr.matchPolicy == null) errs.push(required(child(path, 'matchPolicy'), ''));
  else if (!has(MATCH_POLICIES, mr.matchPolicy))
    errs.push(notSupported(child(path, 'matchPolicy'), mr.matchPolicy, MATCH_POLICIES));
  if (mr.namespaceSelector == null) errs.push(required(child(path, 'namespaceSelector'), ''));
  else
    appendAll(
      errs,
      validateLabelSelector(
        isJsonObject(mr.namespaceSelector) ? mr.namespaceSelector : {},
        false,
        child(path, 'namespaceSelector'),
      ),
    );
  if (mr.objectSelector == null) errs.push(required(child(path, 'objectSelector'), ''));
  else
    appendAll(
      errs,
      validateLabelSelector(
        isJsonObject(mr.objectSelector) ? mr.objectSelector : {},
        false,
        child(path, 'objectSelector'),
      ),
    );
  list(mr.resourceRules).forEach((r, i) =>
    appendAll(errs, validateNamedRuleWithOperations(isJsonObject(r) ? r : {}, index(child(path, 'resourceRules'), i))),
  );
  list(mr.excludeResourceRules).forEach((r, i) =>
    appendAll(
      errs,
      validateNamedRuleWithOperations(isJsonObject(r) ? r : {}, index(child(path, 'excludeResourceRules'), i)),
    ),
  );
  return errs;
}

/** validateParamKind. */
function validateParamKind(pk: ParamKind, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  const kind = str(pk.kind);
  const avPath = child(path, 'apiVersion');
  if (apiVersion.length === 0) {
    errs.push(required(avPath, ''));
  } else {
    const gv = parseGroupVersion(apiVersion);
    if (!gv) {
      errs.push(invalid(avPath, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    } else {
      if (gv.group.length > 0) {
        const groupErrs = isDNS1123Subdomain(gv.group);
        if (groupErrs.length) errs.push(invalid(avPath, gv.group, groupErrs.join(',')));
      }
      if (gv.version.length === 0) {
        errs.push(invalid(avPath, apiVersion, 'version must be specified'));
      } else {
        const versionErrs = isDNS1035Label(gv.version);
        if (versionErrs.length) errs.push(invalid(avPath, gv.version, versionErrs.join(',')));
      }
    }
  }
  if (kind.length === 0) {
    errs.push(required(child(path, 'kind'), ''));
  } else {
    const kindErrs = isDNS1035Label(kind.toLowerCase());
    if (kindErrs.length)
      errs.push(
        invalid(child(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`),
      );
  }
  return errs;
}

/** isCELIdentifier. */
const isCELIdentifier = (name: string): boolean =>
  /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !CEL_RESERVED_WORDS.has(name);

/** validateVariable. */
function validateVariable(
  v: Variable,
  path: string,
  stored: PolicyValidationOptions['stored'],
  compiler: PolicyExpressionCompiler | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(v.name);
  const expression = str(v.expression);
  if (name.trim() === '') errs.push(required(child(path, 'name'), 'name is not specified'));
  else if (!isCELIdentifier(name)) errs.push(invalid(child(path, 'name'), name, 'name is not a valid CEL identifier'));
  if (expression.trim() === '') errs.push(required(child(path, 'expression'), 'expression is not specified'));
  // kube asks whether the stored policy had the expression among its validations'.
  else if (compiler !== undefined)
    appendAll(
      errs,
      compileError(
        child(path, 'expression'),
        expression,
        compiler.variable(name, expression, stored.validations.has(expression)),
      ),
    );
  return errs;
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** validateValidation; expression and messageExpression compiled as written. */
function validateValidation(
  v: Validation,
  path: string,
  stored: PolicyValidationOptions['stored'],
  compiler: PolicyExpressionCompiler | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  const message = str(v.message);
  const expression = str(v.expression);
  const messageExpression = str(v.messageExpression);
  const trimmedMsg = message.trim();
  if (expression.trim().length === 0) errs.push(required(child(path, 'expression'), 'expression is not specified'));
  else if (compiler !== undefined)
    appendAll(
      errs,
      compileError(
        child(path, 'expression'),
        expression,
        compiler.validation(expression, stored.validations.has(expression)),
      ),
    );
  if (messageExpression.length > 0 && messageExpression.trim().length === 0) {
    errs.push(invalid(child(path, 'messageExpression'), messageExpression, 'must be non-empty if specified'));
  } else if (messageExpression.length > 0 && compiler !== undefined) {
    appendAll(
      errs,
      compileError(
        child(path, 'messageExpression'),
        messageExpression,
        compiler.messageExpression(messageExpression, stored.messageExpressions.has(messageExpression)),
      ),
    );
  }
  if (message.length > 0 && trimmedMsg.length === 0)
    errs.push(invalid(child(path, 'message'), message, 'message must be non-empty if specified'));
  else if (hasNewlines(trimmedMsg))
    errs.push(invalid(child(path, 'message'), message, 'message must not contain line breaks'));
  if (v.reason != null && !has(VALIDATION_POLICY_REASONS, v.reason))
    errs.push(notSupported(child(path, 'reason'), v.reason, VALIDATION_POLICY_REASONS));
  return errs;
}

/** validateAuditAnnotation; valueExpression compiled trimmed. */
function validateAuditAnnotation(
  policyName: string,
  a: AuditAnnotation,
  path: string,
  stored: PolicyValidationOptions['stored'],
  compiler: PolicyExpressionCompiler | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  const key = str(a.key);
  if (policyName.length !== 0) {
    const qualified = `${policyName}/${key}`;
    for (const msg of isQualifiedName(qualified)) errs.push(invalid(child(path, 'key'), qualified, msg));
  } else {
    errs.push(invalid(child(path, 'key'), key, 'requires metadata.name be non-empty'));
  }
  const written = str(a.valueExpression);
  const value = written.trim();
  if (value.length === 0) errs.push(required(child(path, 'valueExpression'), 'valueExpression is not specified'));
  else if (byteLength(value) > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) {
    errs.push(
      required(
        child(path, 'valueExpression'),
        `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`,
      ),
    );
  } else if (compiler !== undefined) {
    appendAll(
      errs,
      compileError(
        child(path, 'valueExpression'),
        written,
        compiler.auditAnnotation(value, stored.auditAnnotations.has(written)),
      ),
    );
  }
  return errs;
}

/** Go's %#v of a []admissionregistration.AuditAnnotation. */
const goAuditAnnotations = (v: readonly AuditAnnotation[]): GoPrinted =>
  new GoPrinted(
    `[]admissionregistration.AuditAnnotation{${v.map((a) => `admissionregistration.AuditAnnotation{Key:${goQuote(str(a?.key))}, ValueExpression:${goQuote(str(a?.valueExpression))}}`).join(', ')}}`,
  );

export interface PolicyValidationOptions {
  /** An update that changes neither paramKind nor matchConditions does not judge them again. */
  ignoreMatchConditions: boolean;
  /** The stored policy's expressions (findValidatingPolicyPreexistingExpressions). */
  stored: {
    readonly matchConditions: ReadonlySet<string>;
    readonly validations: ReadonlySet<string>;
    readonly messageExpressions: ReadonlySet<string>;
    readonly auditAnnotations: ReadonlySet<string>;
  };
}

/** A create's options: nothing stored. */
export const NEW_POLICY_OPTIONS: PolicyValidationOptions = {
  ignoreMatchConditions: false,
  stored: {
    matchConditions: new Set(),
    validations: new Set(),
    messageExpressions: new Set(),
    auditAnnotations: new Set(),
  },
};

/**
 * validateValidatingAdmissionPolicySpec, without ObjectMeta; the expressions compiled by
 * `compiler` (none: not compiled), matchConditions by its stateless part.
 */
export function validateValidatingAdmissionPolicy(
  obj: ValidatingAdmissionPolicy,
  opts: PolicyValidationOptions = NEW_POLICY_OPTIONS,
  compiler?: PolicyExpressionCompiler,
): FieldError[] {
  const spec: ValidatingAdmissionPolicySpec = isJsonObject(obj.spec) ? obj.spec : {};
  const path = 'spec';
  const errs: FieldError[] = [];
  if (spec.failurePolicy == null) errs.push(required(child(path, 'failurePolicy'), ''));
  else if (!has(FAILURE_POLICIES, spec.failurePolicy))
    errs.push(notSupported(child(path, 'failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  if (spec.paramKind != null)
    appendAll(errs, validateParamKind(isJsonObject(spec.paramKind) ? spec.paramKind : {}, child(path, 'paramKind')));
  if (spec.matchConstraints == null) {
    errs.push(required(child(path, 'matchConstraints'), ''));
  } else {
    appendAll(errs, validateMatchResources(spec.matchConstraints, child(path, 'matchConstraints')));
    if (list(spec.matchConstraints.resourceRules).length === 0)
      errs.push(required(child(child(path, 'matchConstraints'), 'resourceRules'), ''));
  }
  if (!opts.ignoreMatchConditions)
    appendAll(
      errs,
      validateMatchConditions(
        list(spec.matchConditions),
        child(path, 'matchConditions'),
        opts.stored.matchConditions,
        compiler,
      ),
    );
  list(spec.variables).forEach((v, i) =>
    appendAll(
      errs,
      validateVariable(isJsonObject(v) ? v : {}, index(child(path, 'variables'), i), opts.stored, compiler),
    ),
  );
  const validations = list(spec.validations);
  const annotations = list(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    errs.push(required(child(path, 'validations'), 'validations or auditAnnotations must contain at least one item'));
    errs.push(
      required(child(path, 'auditAnnotations'), 'validations or auditAnnotations must contain at least one item'),
    );
    return errs;
  }
  validations.forEach((v, i) =>
    appendAll(
      errs,
      validateValidation(isJsonObject(v) ? v : {}, index(child(path, 'validations'), i), opts.stored, compiler),
    ),
  );
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(
      invalid(
        child(path, 'auditAnnotations'),
        goAuditAnnotations(annotations),
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  }
  const keys = new Set<string>();
  annotations.forEach((raw, i) => {
    const a = isJsonObject(raw) ? (raw as AuditAnnotation) : {};
    const at = index(child(path, 'auditAnnotations'), i);
    appendAll(errs, validateAuditAnnotation(str(obj.metadata?.name), a, at, opts.stored, compiler));
    const key = str(a.key);
    if (keys.has(key)) errs.push(duplicate(child(at, 'key'), key));
    keys.add(key);
  });
  return errs;
}

/** The options ValidateValidatingAdmissionPolicyUpdate derives from the stored object (ignoreValidatingAdmissionPolicyMatchConditions). */
export function policyUpdateOptions(
  obj: ValidatingAdmissionPolicy,
  old: ValidatingAdmissionPolicy,
): PolicyValidationOptions {
  const spec = isJsonObject(obj.spec) ? obj.spec : {};
  const oldSpec = isJsonObject(old.spec) ? old.spec : {};
  const validations = oldSpec.validations;
  return {
    ignoreMatchConditions:
      deepEqual(spec.paramKind, oldSpec.paramKind) && deepEqual(spec.matchConditions, oldSpec.matchConditions),
    stored: {
      matchConditions: new Set(expressionsOf(oldSpec.matchConditions, 'expression')),
      validations: new Set(expressionsOf(validations, 'expression')),
      messageExpressions: new Set(expressionsOf(validations, 'messageExpression')),
      auditAnnotations: new Set(expressionsOf(oldSpec.auditAnnotations, 'valueExpression')),
    },
  };
}

const CONDITION_REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const CONDITION_REASON_ERR =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const MAX_CONDITION_REASON_LENGTH = 1024;
const MAX_CONDITION_MESSAGE_LENGTH = 32 * 1024;
const tooLongBytes = (field: string, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  detail: `may not be more than ${max} bytes`,
});

/** metav1validation.ValidateConditions. */
function validateConditions(conditions: readonly Condition[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  conditions.forEach((raw, i) => {
    const c = isJsonObject(raw) ? (raw as Condition) : {};
    const at = index(path, i);
    const type = str(c.type);
    if (seen.has(type)) errs.push(duplicate(child(at, 'type'), type));
    else seen.add(type);
    for (const msg of isQualifiedName(type)) errs.push(invalid(child(at, 'type'), type, msg));
    if (!has(CONDITION_STATUSES, c.status))
      errs.push(notSupported(child(at, 'status'), str(c.status), CONDITION_STATUSES));
    if (typeof c.observedGeneration === 'number' && c.observedGeneration < 0) {
      errs.push(
        invalid(child(at, 'observedGeneration'), c.observedGeneration, 'must be greater than or equal to zero'),
      );
    }
    const ltt = c.lastTransitionTime;
    if (!ltt || ltt === '0001-01-01T00:00:00Z') errs.push(required(child(at, 'lastTransitionTime'), 'must be set'));
    const reason = str(c.reason);
    if (reason.length === 0) {
      errs.push(required(child(at, 'reason'), 'must be set'));
    } else {
      if (!CONDITION_REASON.test(reason)) errs.push(invalid(child(at, 'reason'), reason, CONDITION_REASON_ERR));
      if (byteLength(reason) > MAX_CONDITION_REASON_LENGTH)
        errs.push(tooLongBytes(child(at, 'reason'), MAX_CONDITION_REASON_LENGTH));
    }
    if (byteLength(str(c.message)) > MAX_CONDITION_MESSAGE_LENGTH)
      errs.push(tooLongBytes(child(at, 'message'), MAX_CONDITION_MESSAGE_LENGTH));
  });
  return errs;
}

/** ValidateValidatingAdmissionPolicyStatusUpdate (fieldRef is only required, not parsed as JSONPath). */
export function validateValidatingAdmissionPolicyStatus(obj: ValidatingAdmissionPolicy): FieldError[] {
  const status: ValidatingAdmissionPolicyStatus = isJsonObject(obj.status) ? obj.status : {};
  const errs: FieldError[] = [];
  // A typeChecking that is not an object has no expressionWarnings.
  if (status.typeChecking) {
    list(status.typeChecking.expressionWarnings).forEach((raw, i) => {
      const w = isJsonObject(raw) ? (raw as ExpressionWarning) : {};
      const at = index('status.typeChecking.expressionWarnings', i);
      if (str(w.warning) === '') errs.push(required(child(at, 'warning'), ''));
      if (str(w.fieldRef).trim() === '') errs.push(required(child(at, 'fieldRef'), ''));
    });
  }
  appendAll(errs, validateConditions(list(status.conditions), 'status.conditions'));
  return errs;
}

/** validateValidationActions. */
function validateValidationActions(actions: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    if (!has(VALIDATION_ACTIONS, action)) errs.push(notSupported(index(path, i), action, VALIDATION_ACTIONS));
    if (seen.has(str(action))) errs.push(duplicate(index(path, i), action));
    seen.add(str(action));
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      invalid(
        path,
        goStringSlice(actions, 'admissionregistration.ValidationAction'),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) errs.push(required(path, 'at least one validation action is required'));
  return errs;
}

/** validateParamRef. */
function validateParamRef(pr: ParamRef | null | undefined, path: string): FieldError[] {
  if (pr == null) return [];
  const ref: ParamRef = isJsonObject(pr) ? pr : {};
  const errs: FieldError[] = [];
  const name = str(ref.name);
  const hasSelector = ref.selector != null;
  if (name.length > 0) {
    for (const msg of isPathSegmentName(name)) errs.push(invalid(child(path, 'name'), name, msg));
    if (hasSelector) errs.push(forbidden(child(path, 'name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    appendAll(
      errs,
      validateLabelSelector(isJsonObject(ref.selector) ? ref.selector : {}, false, child(path, 'selector')),
    );
    if (name.length > 0) errs.push(forbidden(child(path, 'selector'), 'name and selector are mutually exclusive'));
  }
  if (name.length === 0 && !hasSelector) errs.push(required(path, 'one of name or selector must be specified'));
  const action = ref.parameterNotFoundAction;
  if (action == null || action === '') errs.push(required(child(path, 'parameterNotFoundAction'), ''));
  else if (!has(PARAMETER_NOT_FOUND_ACTIONS, action))
    errs.push(notSupported(child(path, 'parameterNotFoundAction'), action, PARAMETER_NOT_FOUND_ACTIONS));
  return errs;
}

/** validateValidatingAdmissionPolicyBindingSpec (create and update alike), without ObjectMeta. */
export function validateValidatingAdmissionPolicyBinding(obj: ValidatingAdmissionPolicyBinding): FieldError[] {
  const spec: ValidatingAdmissionPolicyBindingSpec = isJsonObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (policyName.length === 0) errs.push(required('spec.policyName', ''));
  else for (const msg of isDNS1123Subdomain(policyName)) errs.push(invalid('spec.policyName', policyName, msg));
  appendAll(errs, validateParamRef(spec.paramRef, 'spec.paramRef'));
  // kube's path, misspelled as it is in validation.go.
  appendAll(errs, validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  appendAll(errs, validateValidationActions(list(spec.validationActions), 'spec.validationActions'));
  return errs;
}
