// matchConditions (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions): CEL expressions
// that must all hold for a webhook to be called or a policy binding to be validated. They share
// one budget (RuntimeCELCostBudgetMatchConditions). A false one skips at once, whatever errors
// came before; errors with no false fall to the failurePolicy: Fail answers with the errors, Ignore
// skips. A webhook's are compiled once per configuration version, with `authorizer` and without
// params or variables, in the stored-expressions environment (accessors.go GetCompiledMatcher).
import type { ExpressionCompiler } from '../../apimachinery/admissionregistration/validation.js';
import { aggregateErrors } from '../../apimachinery/errors.js';
import { RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS } from '../../cel/kube/limits.js';
import { BoolType } from '../../cel/types.js';
import { AdmissionCompiler, type CompilationResult } from '../cel/compile.js';
import { type Compiled, evaluateSet, type Inputs } from '../cel/evaluate.js';
import type { FailurePolicy } from '../policy/types.js';
import type { MatchCondition } from './types.js';

/** Matches: call the webhook (validate the binding). Otherwise skip, or refuse with `error` under Fail. */
type MatchResult = { readonly matches: boolean; readonly error?: string };

/** Matcher.Match. `variables`: a policy's, which its conditions may read. */
export function evaluateMatchConditions(
  conditions: readonly Compiled[],
  inputs: Inputs,
  failurePolicy: FailurePolicy,
  variables?: ReadonlyMap<string, CompilationResult>,
): MatchResult {
  const fail = (error: string): MatchResult =>
    failurePolicy === 'Fail' ? { matches: false, error } : { matches: false };
  const set = evaluateSet(conditions, inputs, variables, Number(RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS));
  if (set.error !== undefined) return fail(set.error);
  const errors: string[] = [];
  for (const r of set.results) {
    if (r === undefined) continue;
    if (r.error !== undefined) errors.push(r.error);
    else if (r.value === false) return { matches: false };
  }
  return errors.length > 0 ? fail(aggregateErrors(errors)) : { matches: true };
}

/** The compiler webhooks' conditions are compiled with: no params, no variables. */
const webhookCompiler = new AdmissionCompiler(false);
const WEBHOOK_DECLARATIONS = { params: false, authorizer: true };

/** A webhook's conditions compiled for the plugin (a MatchCondition's return type is bool). */
export function compileWebhookMatchConditions(conditions: readonly MatchCondition[]): Compiled[] {
  return conditions.map(({ expression }) => ({
    expression,
    result: webhookCompiler.compile(expression, WEBHOOK_DECLARATIONS, 'StoredExpressions', [BoolType]),
  }));
}

/**
 * A webhook's conditions compiled at write (validateMatchConditionsExpression), an expression the
 * stored configuration already had in the stored-expressions environment.
 */
export const WEBHOOK_EXPRESSION_COMPILER: ExpressionCompiler = {
  matchCondition: (expression, stored) =>
    webhookCompiler.compile(expression, WEBHOOK_DECLARATIONS, stored ? 'StoredExpressions' : 'NewExpressions', [
      BoolType,
    ]).error,
};
