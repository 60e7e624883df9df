// A ValidatingAdmissionPolicy compiled as kube's validating plugin compiles it (compilePolicy):
// the variables in order (each seeing those before it), matchConditions, validations,
// messageExpressions (without `authorizer`) and auditAnnotations; and its evaluation as kube's
// validator (validator.go) with the composited filter's cost accounting (cel/filter.go,
// cel/composition.go): per expression the per-call limit, per set of expressions the request's
// runtime budget, lazily evaluated variables charged to the set that reads them.
import { aggregateErrors } from '../../apimachinery/errors.js';
import {
  ADMISSION_MATCH_CONDITIONS_BUDGET,
  type AdmissionCompileResult,
  type AdmissionDeclarations,
  LazyVariables,
  compileAdmissionExpression,
  runAdmissionProgram,
} from '../../crd/cel/admission.js';
import {
  MAX_MESSAGE_EXPRESSION_BYTES,
  OUT_OF_BUDGET,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
} from '../../crd/cel/eval.js';
import { REGEX_WORK_BUDGET, type RegexBudget } from '../../crd/cel/env.js';
import type { FailurePolicy, ValidatingAdmissionPolicy } from './types.js';

interface Compiled {
  expression: string;
  result: AdmissionCompileResult;
}

export interface CompiledPolicy {
  failurePolicy: FailurePolicy;
  hasParams: boolean;
  variables: { name: string; c: Compiled }[];
  matchConditions: { name: string; c: Compiled }[];
  validations: { c: Compiled; message?: string; reason?: string; messageExpression?: Compiled }[];
  auditAnnotations: { key: string; c: Compiled }[];
}

/** The types of variables as kube declares them: a variable that did not compile is dyn. */
function declsWith(hasParams: boolean, authorizer: boolean, vars: CompiledPolicy['variables']): AdmissionDeclarations {
  return {
    params: hasParams,
    authorizer,
    variables: vars.map((v) => ({ name: v.name, type: v.c.result.program?.type ?? 'dyn' })),
  };
}

export function compilePolicy(p: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = p.spec ?? {};
  const hasParams = spec.paramKind !== undefined && spec.paramKind !== null;
  const variables: CompiledPolicy['variables'] = [];
  for (const v of spec.variables ?? []) {
    const expression = v.expression ?? '';
    variables.push({
      name: v.name ?? '',
      c: { expression, result: compileAdmissionExpression(expression, declsWith(hasParams, true, variables)) },
    });
  }
  const full = declsWith(hasParams, true, variables);
  const noAuthz = declsWith(hasParams, false, variables);
  const compile = (expr: string | undefined, decls: AdmissionDeclarations, types: readonly string[]): Compiled => ({
    expression: expr ?? '',
    result: compileAdmissionExpression(expr ?? '', decls, types),
  });
  return {
    failurePolicy:
      spec.failurePolicy === 'Ignore'
        ? 'Ignore'
        : spec.failurePolicy === undefined || spec.failurePolicy === 'Fail'
          ? 'Fail'
          : (spec.failurePolicy as FailurePolicy),
    hasParams,
    variables,
    matchConditions: (spec.matchConditions ?? []).map((m) => ({
      name: m.name ?? '',
      c: compile(m.expression, full, ['bool']),
    })),
    validations: (spec.validations ?? []).map((v) => ({
      c: compile(v.expression, full, ['bool']),
      message: v.message,
      reason: v.reason,
      messageExpression: v.messageExpression ? compile(v.messageExpression, noAuthz, ['string']) : undefined,
    })),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({
      key: a.key ?? '',
      c: compile(a.valueExpression, full, ['string', 'null']),
    })),
  };
}

/** The activation of one evaluation, variables excepted. */
export type Inputs = Record<string, unknown>;

export interface Evaluation {
  value?: unknown;
  error?: string;
}

export interface EvalOptions {
  /** The request's runtime budget per set of expressions (celconfig.RuntimeCELCostBudget). */
  budget?: number;
  perCallLimit?: number;
  /** Regex work shared by the request (env.ts REGEX_WORK_BUDGET). */
  regex?: RegexBudget;
}

/**
 * kube's CompositedFilter.ForInput: each expression in order, a fresh lazy `variables`; returns
 * the results and what is left of the budget, or an error (out of budget) for the whole set.
 */
export function forInput(
  cp: CompiledPolicy,
  exprs: readonly (Compiled | undefined)[],
  inputs: Inputs,
  budget: number,
  o: EvalOptions,
): { results: (Evaluation | undefined)[]; remaining: number } | { error: string } {
  const perCall = o.perCallLimit ?? PER_CALL_LIMIT;
  const regex = o.regex ?? { remaining: REGEX_WORK_BUDGET };
  const vars = new LazyVariables();
  const activation: Inputs = { ...inputs, variables: vars };
  let variableCost = 0;
  let regexRefused = false;
  for (const v of cp.variables) {
    vars.define(v.name, () => {
      const r = v.c.result;
      if (r.error !== undefined) throw new Error(r.error);
      const res = runAdmissionProgram(r.program, activation, perCall, regex);
      variableCost += res.cost;
      if (res.regexRefused) regexRefused = true;
      if (res.error !== undefined) throw new Error(res.error);
      return res.value;
    });
  }
  let remaining = budget;
  const results: (Evaluation | undefined)[] = [];
  for (const e of exprs) {
    if (!e) {
      results.push(undefined);
      continue;
    }
    const r = e.result;
    if (r.error !== undefined) {
      results.push({ error: `compilation error: ${r.error}` });
      continue;
    }
    const res = runAdmissionProgram(r.program, activation, perCall, regex);
    if (res.regexRefused || regexRefused || res.cost > remaining) return { error: OUT_OF_BUDGET };
    remaining -= res.cost;
    if (res.error !== undefined)
      results.push({ error: `expression '${e.expression}' resulted in error: ${res.error}` });
    else results.push({ value: res.value });
  }
  remaining -= variableCost;
  if (remaining < 0) return { error: OUT_OF_BUDGET };
  return { results, remaining };
}

export type Action = 'admit' | 'deny';

export interface PolicyDecision {
  action: Action;
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  /** A metav1.StatusReason; empty for errors (answered as Invalid). */
  reason: string;
}

export interface AuditAnnotationResult {
  action: 'publish' | 'error' | 'exclude';
  key: string;
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

const errorAction = (f: FailurePolicy): Action => (f === 'Ignore' ? 'admit' : 'deny');

/**
 * A webhook's matchConditions, compiled as kube's webhook plugins compile them: the admission
 * environment with `object`, `oldObject`, `request` and `authorizer`; no params, no variables.
 */
export function compileMatchConditions(
  conditions: readonly { name?: string; expression?: string }[],
  failurePolicy: FailurePolicy,
): CompiledPolicy {
  const decls: AdmissionDeclarations = { params: false, authorizer: true, variables: [] };
  return {
    failurePolicy,
    hasParams: false,
    variables: [],
    matchConditions: conditions.map((m) => ({
      name: m.name ?? '',
      c: { expression: m.expression ?? '', result: compileAdmissionExpression(m.expression ?? '', decls, ['bool']) },
    })),
    validations: [],
    auditAnnotations: [],
  };
}

/**
 * kube's matchconditions.Matcher.Match, for policies and webhooks alike: the conditions share one
 * budget; false when any is false; otherwise errors by failurePolicy (Fail: the aggregate error).
 */
export function evaluateMatchConditions(
  cp: CompiledPolicy,
  inputs: Inputs,
  o: EvalOptions = {},
): { matches: boolean; error?: string } {
  const r = forInput(
    cp,
    cp.matchConditions.map((m) => m.c),
    inputs,
    ADMISSION_MATCH_CONDITIONS_BUDGET,
    o,
  );
  if ('error' in r) return cp.failurePolicy === 'Fail' ? { matches: false, error: r.error } : { matches: false };
  const errors: string[] = [];
  for (const e of r.results) {
    if (!e) continue;
    if (e.error !== undefined) errors.push(e.error);
    if (e.value === false) return { matches: false };
  }
  if (errors.length > 0)
    return cp.failurePolicy === 'Fail' ? { matches: false, error: aggregateErrors(errors) } : { matches: false };
  return { matches: true };
}

/** kube's validator.Validate for one binding and one param. */
export function validatePolicy(cp: CompiledPolicy, inputs: Inputs, o: EvalOptions = {}): ValidateResult {
  const f = cp.failurePolicy;
  const fail = (message: string): ValidateResult => ({
    decisions: [{ action: errorAction(f), evaluation: 'error', message, reason: '' }],
    auditAnnotations: [],
  });
  if (cp.matchConditions.length > 0) {
    const m = evaluateMatchConditions(cp, inputs, o);
    if (m.error !== undefined) return fail(m.error);
    if (!m.matches) return { decisions: [], auditAnnotations: [] };
  }
  const budget = o.budget ?? RUNTIME_CEL_COST_BUDGET;
  const evals = forInput(
    cp,
    cp.validations.map((v) => v.c),
    inputs,
    budget,
    o,
  );
  if ('error' in evals) return fail(evals.error);
  const { authorizer: _omitted, ...noAuthz } = inputs;
  const messages = forInput(
    cp,
    cp.validations.map((v) => v.messageExpression),
    noAuthz,
    evals.remaining,
    o,
  );
  const decisions: PolicyDecision[] = cp.validations.map((v, i) => {
    const e = evals.results[i]!;
    if (e.error !== undefined) return { action: errorAction(f), evaluation: 'error', message: e.error, reason: '' };
    if ('error' in messages)
      return {
        action: errorAction(f),
        evaluation: 'error',
        message: `failed messageExpression: ${messages.error}`,
        reason: '',
      };
    if (e.value === true) return { action: 'admit', evaluation: 'admit', message: '', reason: '' };
    let message = '';
    const m = messages.results[i];
    if (m && m.error === undefined && typeof m.value === 'string') {
      message = m.value.trim();
      if (Buffer.byteLength(message) > MAX_MESSAGE_EXPRESSION_BYTES || message.includes('\n')) message = '';
    }
    if (message === '' && v.message) message = v.message.trim();
    if (message === '') message = `failed expression: ${v.c.expression.trim()}`;
    return { action: 'deny', evaluation: 'deny', message, reason: v.reason ?? 'Invalid' };
  });
  const audits = forInput(
    cp,
    cp.auditAnnotations.map((a) => a.c),
    noAuthz,
    budget,
    o,
  );
  if ('error' in audits) return fail(audits.error);
  const auditAnnotations: AuditAnnotationResult[] = cp.auditAnnotations.map((a, i) => {
    const e = audits.results[i]!;
    if (e.error !== undefined) return { action: f === 'Ignore' ? 'exclude' : 'error', key: a.key, error: e.error };
    if (typeof e.value === 'string') {
      const value = e.value.trim();
      return value === '' ? { action: 'exclude', key: a.key } : { action: 'publish', key: a.key, value };
    }
    if (e.value === null) return { action: 'exclude', key: a.key };
    return {
      action: 'error',
      key: a.key,
      error: `valueExpression '${a.c.expression}' resulted in unsupported return type: ${celTypeName(e.value)}. Return type must be either string or null.`,
    };
  });
  return { decisions, auditAnnotations };
}

function celTypeName(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return 'dyn';
}
