// matchConditions (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions): CEL expressions
// over `object`, `oldObject` and `request` that must all hold for a webhook to be called. A false
// one skips the webhook at once; errors (with no false) fall to the webhook's failurePolicy: Fail
// refuses the request, Ignore skips the webhook.
//
// Compiled with crd/cel's free-standing expression compiler (the Kubernetes base environment, its
// libraries and cost meter). What kube also declares and we do not: `authorizer` and
// `authorizer.requestResource` (the authorization library's builder: `.group().resource().check()`),
// so an expression that uses them fails to compile and counts as an error; `object` and
// `oldObject` are `dyn` rather than typed by the kind's schema.
import { CostLimitExceeded, compileExpression, type CompiledExpression } from '../../crd/cel/env.js';
import { runtimeMessage } from '../../crd/cel/messages.js';
import { RUNTIME_CEL_COST_BUDGET } from '../../crd/cel/eval.js';
import type { MatchCondition } from './types.js';

const VARIABLES = { object: 'dyn', oldObject: 'dyn', request: 'dyn' };

export interface MatchBindings {
  object: unknown;
  oldObject: unknown;
  /** The AdmissionRequest as CEL sees it (admissionreview.ts celRequest). */
  request: unknown;
}

/** Matches: call the webhook. Skip: a condition was false (or errors under Ignore). Error: errors under Fail. */
export type MatchResult = { matches: true } | { matches: false; failedCondition?: string } | { error: string };

type Compiled = { program: CompiledExpression } | { error: string };
const cache = new Map<string, Compiled>();

function compile(expression: string): Compiled {
  let c = cache.get(expression);
  if (c) return c;
  try {
    c = { program: compileExpression(expression, VARIABLES) };
  } catch (err) {
    c = { error: `compilation error: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (cache.size >= 1024) cache.clear();
  cache.set(expression, c);
  return c;
}

/** utilerrors.NewAggregate(errs).Error(). */
function aggregate(errs: string[]): string {
  const msgs = [...new Set(errs)];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`;
}

/**
 * matcher.Match: the conditions in order; the first false one decides. Each evaluation has kube's
 * whole runtime budget (kube shares one budget among a webhook's conditions; crd/cel's expression
 * API does not report the cost spent).
 */
export function evaluateMatchConditions(conditions: readonly MatchCondition[], bindings: MatchBindings, failurePolicy: string): MatchResult {
  const errors: string[] = [];
  for (const cond of conditions) {
    const c = compile(cond.expression);
    if ('error' in c) {
      errors.push(c.error);
      continue;
    }
    let value: unknown;
    try {
      value = c.program.evaluate({ ...bindings }, RUNTIME_CEL_COST_BUDGET);
    } catch (err) {
      const why = err instanceof CostLimitExceeded ? 'operation cancelled: actual cost limit exceeded' : runtimeMessage(err);
      errors.push(`expression '${cond.expression}' resulted in error: ${why}`);
      continue;
    }
    if (value === false) return { matches: false, failedCondition: cond.name };
  }
  if (errors.length > 0) return failurePolicy === 'Ignore' ? { matches: false } : { error: aggregate(errors) };
  return { matches: true };
}
