// The audit policy (audit.k8s.io/v1 Policy): loading and validating the --audit-policy-file as
// kube's policy reader does, and deciding each request's level and omitted stages as kube's policy
// checker does (rules in order, the first match wins, no match means None).
import { aggregateErrors } from '../../apimachinery/errors.js';
import { readFileSync } from 'node:fs';
import { lazyRequire } from '../../apimachinery/lazy-require.js';
import type { AuthorizationAttributes } from '../../apimachinery/authorization.js';
import {
  type FieldError,
  child,
  formatFieldError,
  index,
  invalid,
  notSupported,
  required,
} from '../../apimachinery/field-errors.js';
import { isDNS1123Subdomain } from '../../apimachinery/validation/names.js';

// Loaded only when --audit-policy-file is given.
const yaml = lazyRequire<typeof import('yaml')>('yaml');

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

const AUDIT_LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const AUDIT_STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** kube's Level.Less / GreaterOrEqual: levels are ordered None < Metadata < Request < RequestResponse. */
export function levelAtLeast(level: AuditLevel, min: AuditLevel): boolean {
  return AUDIT_LEVELS.indexOf(level) >= AUDIT_LEVELS.indexOf(min);
}

interface GroupResources {
  /** '' is the core group. */
  group?: string;
  // `pods`, `pods/log`, `*`, `*/status`, `pods/*`; empty matches every resource of the group.
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  /** As written; validation rejects anything outside AUDIT_LEVELS. */
  level: string;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: string[];
  /** Unset means the policy's omitManagedFields. */
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  apiVersion: string;
  kind: string;
  metadata?: Record<string, unknown>;
  rules: PolicyRule[];
  omitStages?: string[];
  omitManagedFields?: boolean;
}

/** kube's RequestAuditConfig: what the policy decided for one request. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

const AUDIT_API_VERSION = 'audit.k8s.io/v1';

/** A policy file that cannot be used; the message is one line, ready for a start-up error. */
export class AuditPolicyError extends Error {
  override name = 'AuditPolicyError';
}

// ---------------------------------------------------------------------------------------------
// Decoding: kube decodes with the audit scheme's universal decoder (JSON or YAML, case-sensitive
// field names, unknown fields ignored), so a wrong type is a decode error, not a validation error.

type JsonType = 'string' | 'number' | 'bool' | 'array' | 'object' | 'null';

function jsonTypeOf(v: unknown): JsonType {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string') return 'string';
  return 'object';
}

class DecodeError extends Error {}

function typeError(v: unknown, goField: string, goType: string): DecodeError {
  return new DecodeError(`json: cannot unmarshal ${jsonTypeOf(v)} into Go struct field ${goField} of type ${goType}`);
}

function decodeString(v: unknown, goField: string): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'string') throw typeError(v, goField, 'string');
  return v;
}

function decodeBool(v: unknown, goField: string): boolean | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'boolean') throw typeError(v, goField, 'bool');
  return v;
}

function decodeStrings(v: unknown, goField: string, goElem = 'string'): string[] | undefined {
  if (v === null || v === undefined) return undefined;
  if (!Array.isArray(v)) throw typeError(v, goField, `[]${goElem}`);
  return v.map((s) => {
    if (typeof s !== 'string') throw typeError(s, goField, goElem);
    return s;
  });
}

function decodeObject(v: unknown, goField: string, goType: string): Record<string, unknown> | undefined {
  if (v === null || v === undefined) return undefined;
  if (jsonTypeOf(v) !== 'object') throw typeError(v, goField, goType);
  return v as Record<string, unknown>;
}

function decodeGroupResources(v: unknown): GroupResources {
  const o = decodeObject(v, 'PolicyRule.rules.resources', 'v1.GroupResources') ?? {};
  const out: GroupResources = {};
  const group = decodeString(o.group, 'GroupResources.rules.resources.group');
  if (group !== undefined) out.group = group;
  const resources = decodeStrings(o.resources, 'GroupResources.rules.resources.resources');
  if (resources) out.resources = resources;
  const names = decodeStrings(o.resourceNames, 'GroupResources.rules.resources.resourceNames');
  if (names) out.resourceNames = names;
  return out;
}

function decodeRule(v: unknown): PolicyRule {
  const o = decodeObject(v, 'Policy.rules', 'v1.PolicyRule') ?? {};
  const f = (name: string): string => `PolicyRule.rules.${name}`;
  const rule: PolicyRule = { level: decodeString(o.level, f('level')) ?? '' };
  for (const k of ['users', 'userGroups', 'verbs', 'namespaces', 'nonResourceURLs'] as const) {
    const list = decodeStrings(o[k], f(k));
    if (list) rule[k] = list;
  }
  const omit = decodeStrings(o.omitStages, f('omitStages'), 'v1.Stage');
  if (omit) rule.omitStages = omit;
  if (o.resources !== null && o.resources !== undefined) {
    if (!Array.isArray(o.resources)) throw typeError(o.resources, f('resources'), '[]v1.GroupResources');
    rule.resources = o.resources.map(decodeGroupResources);
  }
  const omf = decodeBool(o.omitManagedFields, f('omitManagedFields'));
  if (omf !== undefined) rule.omitManagedFields = omf;
  return rule;
}

function decodePolicy(doc: unknown): AuditPolicy {
  if (jsonTypeOf(doc) !== 'object')
    throw new DecodeError(
      `json: cannot unmarshal ${jsonTypeOf(doc)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  const o = doc as Record<string, unknown>;
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const kind = typeof o.kind === 'string' ? o.kind : '';
  const text = JSON.stringify(doc);
  if (kind === '') throw new DecodeError(`Object 'Kind' is missing in '${text}'`);
  if (apiVersion === '') throw new DecodeError(`Object 'apiVersion' is missing in '${text}'`);
  // Since kube 1.24 the audit scheme holds only audit.k8s.io/v1 (v1alpha1 and v1beta1 were removed).
  if (apiVersion !== AUDIT_API_VERSION || kind !== 'Policy') {
    throw new DecodeError(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/audit/scheme.go"`,
    );
  }
  const policy: AuditPolicy = { apiVersion, kind, rules: [] };
  const metadata = decodeObject(o.metadata, 'Policy.metadata', 'v1.ObjectMeta');
  if (metadata) policy.metadata = metadata;
  if (o.rules !== null && o.rules !== undefined) {
    if (!Array.isArray(o.rules)) throw typeError(o.rules, 'Policy.rules', '[]v1.PolicyRule');
    policy.rules = o.rules.map(decodeRule);
  }
  const omit = decodeStrings(o.omitStages, 'Policy.omitStages', 'v1.Stage');
  if (omit) policy.omitStages = omit;
  const omf = decodeBool(o.omitManagedFields, 'Policy.omitManagedFields');
  if (omf !== undefined) policy.omitManagedFields = omf;
  return policy;
}

// ---------------------------------------------------------------------------------------------
// Validation, as k8s.io/apiserver/pkg/apis/audit/validation (paths and texts included).

function validateLevel(level: string, path: string): FieldError[] {
  if ((AUDIT_LEVELS as readonly string[]).includes(level)) return [];
  if (level === '') return [required(path)];
  return [notSupported(path, level, AUDIT_LEVELS)];
}

function validateNonResourceURLs(urls: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  urls.forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/'))
      errs.push(invalid(index(path, i), url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*')) {
      errs.push(invalid(index(path, i), url, "non-resource URL wildcards '*' must be the final character of the rule"));
    }
  });
  return errs;
}

function validateResources(groups: GroupResources[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const gr of groups) {
    // kube reports these at `resources.group` without the index; kept so messages match.
    if (gr.group) {
      const msgs = isDNS1123Subdomain(gr.group);
      if (msgs.length) errs.push(invalid(child(path, 'group'), gr.group, msgs.join(',')));
    }
    if ((gr.resourceNames?.length ?? 0) > 0 && (gr.resources?.length ?? 0) === 0) {
      errs.push(
        invalid(child(path, 'resourceNames'), gr.resourceNames, 'using resourceNames requires at least one resource'),
      );
    }
  }
  return errs;
}

function validateOmitStages(stages: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  stages.forEach((s, i) => {
    if (!(AUDIT_STAGES as readonly string[]).includes(s))
      errs.push(invalid(index(path, i), s, `allowed stages are ${AUDIT_STAGES.join(',')}`));
  });
  return errs;
}

/** kube's ValidatePolicy. */
export function validatePolicy(policy: AuditPolicy): FieldError[] {
  const errs = validateOmitStages(policy.omitStages ?? [], 'omitStages');
  policy.rules.forEach((rule, i) => {
    const p = index('rules', i);
    errs.push(...validateLevel(rule.level, child(p, 'level')));
    errs.push(...validateNonResourceURLs(rule.nonResourceURLs ?? [], child(p, 'nonResourceURLs')));
    errs.push(...validateResources(rule.resources ?? [], child(p, 'resources')));
    errs.push(...validateOmitStages(rule.omitStages ?? [], child(p, 'omitStages')));
    if (
      (rule.nonResourceURLs?.length ?? 0) > 0 &&
      ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0)
    ) {
      errs.push(
        invalid(
          child(p, 'nonResourceURLs'),
          rule.nonResourceURLs,
          'rules cannot apply to both regular resources and non-resource URLs',
        ),
      );
    }
  });
  return errs;
}

/** kube's LoadPolicyFromBytes: decode, validate, and refuse a policy without rules. */
export function parsePolicy(text: string): AuditPolicy {
  let doc: unknown;
  try {
    const docs = yaml().parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [docs];
    const first = list.find((d) => d.contents !== null) ?? list[0];
    if (!first) throw new DecodeError("Object 'Kind' is missing in ''");
    if (first.errors.length)
      throw new DecodeError(`error converting YAML to JSON: ${first.errors[0]!.message.split('\n')[0]}`);
    doc = first.toJS({ maxAliasCount: 100 });
    const policy = decodePolicy(doc);
    const errs = validatePolicy(policy);
    if (errs.length) throw new AuditPolicyError(aggregateErrors(errs.map(formatFieldError)));
    if (policy.rules.length === 0) throw new AuditPolicyError('loaded illegal policy with 0 rules');
    return policy;
  } catch (err) {
    if (err instanceof AuditPolicyError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new AuditPolicyError(`failed decoding: ${msg.split('\n')[0]}`);
  }
}

/**
 * kube's LoadPolicyFromFile as the apiserver's options call it. The error message is the one line
 * kube-apiserver prints: `loading audit policy file: <why>: from file <path>`.
 */
export function loadPolicyFile(path: string): AuditPolicy {
  const prefix = 'loading audit policy file: ';
  if (path === '') throw new AuditPolicyError(`${prefix}file path not specified`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new AuditPolicyError(`${prefix}failed to read file path ${JSON.stringify(path)}: ${msg}`);
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new AuditPolicyError(`${prefix}${msg}: from file ${path}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation, as kube's policyRuleEvaluator.

export interface PolicyRuleEvaluator {
  evaluate(attrs: AuthorizationAttributes): RequestAuditConfig;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  // Go's TrimRight strips every trailing '*', so `/api**` behaves as `/api*`.
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function ruleMatchesResource(rule: PolicyRule, attrs: AuthorizationAttributes): boolean {
  if (!attrs.resourceRequest) return false;
  if (rule.namespaces?.length && !rule.namespaces.includes(attrs.namespace)) return false;
  if (!rule.resources?.length) return true;
  const { apiGroup, resource, subresource, name } = attrs;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== apiGroup) continue;
    if (!gr.resources?.length) return true;
    for (const res of gr.resources) {
      if (gr.resourceNames?.length && !gr.resourceNames.includes(name)) continue;
      if (res === combined || res === '*') return true;
      if (subresource && res.startsWith('*/') && subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}

function ruleMatches(rule: PolicyRule, attrs: AuthorizationAttributes): boolean {
  const user = attrs.user;
  if (rule.users?.length && !rule.users.includes(user.name)) return false;
  if (rule.userGroups?.length && !user.groups.some((g) => rule.userGroups!.includes(g))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) return ruleMatchesResource(rule, attrs);
  if (rule.nonResourceURLs?.length)
    return !attrs.resourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  return true;
}

/** kube's NewPolicyRuleEvaluator: each rule's omitStages merged with the policy's up front. */
export function newPolicyEvaluator(policy: AuditPolicy): PolicyRuleEvaluator {
  const policyOmit = (policy.omitStages ?? []) as AuditStage[];
  const policyOmf = policy.omitManagedFields ?? false;
  const rules = policy.rules.map((rule) => ({
    rule,
    config: {
      level: rule.level as AuditLevel,
      omitStages: [...new Set([...policyOmit, ...((rule.omitStages ?? []) as AuditStage[])])],
      omitManagedFields: rule.omitManagedFields ?? policyOmf,
    },
  }));
  const fallback: RequestAuditConfig = {
    level: 'None',
    omitStages: [...new Set(policyOmit)],
    omitManagedFields: policyOmf,
  };
  return {
    evaluate(attrs) {
      for (const { rule, config } of rules) {
        if (ruleMatches(rule, attrs)) return { ...config, omitStages: [...config.omitStages] };
      }
      return { ...fallback, omitStages: [...fallback.omitStages] };
    },
  };
}
