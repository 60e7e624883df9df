// A ValidatingAdmissionPolicy compiled as kube's validating plugin compiles it (plugin.go
// compilePolicy): one composited compiler, the variables first, in order, each seeing those
// before it; then matchConditions, validations and auditAnnotations with `authorizer`, and
// messageExpressions without it; all in the stored-expressions environment. And its evaluation as
// kube's validator (validator.go): the matchConditions, then the validations, their
// messageExpressions under what the validations left of the budget, and the auditAnnotations under
// a budget of their own; errors decided by the failurePolicy.
import { BoolType, NullType, StringType } from '../../cel/types.js';
import { MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES } from '../../cel/kube/limits.js';
import { trim } from '../../cel/kube/strings-text.js';
import type { Value } from '../../cel/values.js';
import { AdmissionCompiler, type CompilationResult, type Declarations } from '../cel/compile.js';
import { type Compiled, evaluateSet, type Inputs } from '../cel/evaluate.js';
import { evaluateMatchConditions } from '../webhook/match-conditions.js';
import type { FailurePolicy, ValidatingAdmissionPolicy } from './types.js';

export interface CompiledPolicy {
  readonly failurePolicy: FailurePolicy;
  readonly hasParams: boolean;
  readonly variables: ReadonlyMap<string, CompilationResult>;
  readonly matchConditions: readonly Compiled[];
  readonly validations: readonly { readonly c: Compiled; readonly message?: string; readonly reason?: string }[];
  /** Each validation's messageExpression; undefined where it has none. */
  readonly messageExpressions: readonly (Compiled | undefined)[];
  readonly auditAnnotations: readonly { readonly key: string; readonly c: Compiled }[];
}

export function compilePolicy(p: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = p.spec;
  const hasParams = spec.paramKind != null;
  const compiler = new AdmissionCompiler(true);
  const full: Declarations = { params: hasParams, authorizer: true };
  const compile = (expression: string, decls: Declarations, types: Parameters<AdmissionCompiler['compile']>[3]) => ({
    expression,
    result: compiler.compile(expression, decls, 'StoredExpressions', types),
  });
  for (const v of spec.variables ?? [])
    compiler.compileVariable(v.name ?? '', v.expression ?? '', full, 'StoredExpressions');
  const validations = spec.validations ?? [];
  return {
    // Validation admits Fail and Ignore only; a stored policy has one (Fail by default).
    failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    hasParams,
    variables: compiler.variables,
    matchConditions: (spec.matchConditions ?? []).map((m) => compile(m.expression ?? '', full, [BoolType])),
    validations: validations.map((v) => ({
      c: compile(v.expression ?? '', full, [BoolType]),
      message: v.message,
      reason: v.reason,
    })),
    messageExpressions: validations.map((v) =>
      v.messageExpression
        ? compile(v.messageExpression, { params: hasParams, authorizer: false }, [StringType])
        : undefined,
    ),
    auditAnnotations: (spec.auditAnnotations ?? []).map((a) => ({
      key: a.key ?? '',
      c: compile(a.valueExpression ?? '', full, [StringType, NullType]),
    })),
  };
}

type Action = 'admit' | 'deny';

export interface PolicyDecision {
  action: Action;
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  /** A metav1.StatusReason; empty for errors (answered as Invalid). */
  reason: string;
}

interface AuditAnnotationResult {
  action: 'publish' | 'error' | 'exclude';
  key: string;
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

/** What one binding's param is validated with. */
interface PolicyInputs {
  /** The validations' (with `authorizer` when there is one); messageExpressions and auditAnnotations drop it. */
  readonly validations: Inputs;
  /** The matchConditions' (the request's own resource, no namespaceObject). */
  readonly matchConditions: Inputs;
  /** The auditAnnotations' namespaceObject: kube hands them the namespace as stored. */
  readonly auditNamespace: Value;
}

const errorAction = (f: FailurePolicy): Action => (f === 'Ignore' ? 'admit' : 'deny');

/** A message from messageExpression's value: trimmed, one line, at most 5 KiB; '' to fall back. */
function evaluatedMessage(v: Value | undefined): string {
  if (typeof v !== 'string') return '';
  const m = trim(v);
  return Buffer.byteLength(m) > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || m.includes('\n') ? '' : m;
}

/** kube's validator.Validate for one binding and one param; `budget`: RuntimeCELCostBudget. */
export function validatePolicy(cp: CompiledPolicy, inputs: PolicyInputs, budget: number): ValidateResult {
  const f = cp.failurePolicy;
  const fail = (message: string): ValidateResult => ({
    decisions: [{ action: errorAction(f), evaluation: 'error', message, reason: '' }],
    auditAnnotations: [],
  });
  if (cp.matchConditions.length > 0) {
    const m = evaluateMatchConditions(cp.matchConditions, inputs.matchConditions, f, cp.variables);
    if (m.error !== undefined) return fail(m.error);
    if (!m.matches) return { decisions: [], auditAnnotations: [] };
  }
  const evals = evaluateSet(
    cp.validations.map((v) => v.c),
    inputs.validations,
    cp.variables,
    budget,
  );
  if (evals.error !== undefined) return fail(evals.error);
  const { authorizer: _a, requestResource: _r, ...noAuthz } = inputs.validations;
  const messages = evaluateSet(cp.messageExpressions, noAuthz, cp.variables, evals.remaining);
  const decisions = cp.validations.map((v, i): PolicyDecision => {
    const e = evals.results[i]!;
    if (e.error !== undefined) return { action: errorAction(f), evaluation: 'error', message: e.error, reason: '' };
    if (messages.error !== undefined)
      return {
        action: errorAction(f),
        evaluation: 'error',
        message: `failed messageExpression: ${messages.error}`,
        reason: '',
      };
    if (e.value === true) return { action: 'admit', evaluation: 'admit', message: '', reason: '' };
    const m = messages.results[i];
    let message = m !== undefined && m.error === undefined ? evaluatedMessage(m.value) : '';
    if (message === '' && v.message) message = trim(v.message);
    if (message === '') message = `failed expression: ${trim(v.c.expression)}`;
    return { action: 'deny', evaluation: 'deny', message, reason: v.reason ?? 'Invalid' };
  });
  const audits = evaluateSet(
    cp.auditAnnotations.map((a) => a.c),
    { ...noAuthz, namespaceObject: inputs.auditNamespace },
    cp.variables,
    budget,
  );
  if (audits.error !== undefined) return fail(audits.error);
  const auditAnnotations = cp.auditAnnotations.map((a, i): AuditAnnotationResult => {
    const e = audits.results[i]!;
    if (e.error !== undefined) return { action: f === 'Ignore' ? 'exclude' : 'error', key: a.key, error: e.error };
    // Compiled to string or null: a string is published unless blank, null excludes.
    const value = typeof e.value === 'string' ? trim(e.value) : '';
    return value === '' ? { action: 'exclude', key: a.key } : { action: 'publish', key: a.key, value };
  });
  return { decisions, auditAnnotations };
}
