// matchConditions (k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions): CEL expressions
// over `object`, `oldObject`, `request` and `authorizer` that must all hold for a webhook to be
// called. A false one skips the webhook at once; errors (with no false) fall to the webhook's
// failurePolicy: Fail refuses the request, Ignore skips the webhook. Compiled and evaluated by the
// same matcher as ValidatingAdmissionPolicy's conditions (policy/compile.ts), as in kube.
import type { Authorizer } from '../../apimachinery/authorization.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { AuthorizerValue, admissionValue, authorizerValue } from '../../crd/cel/admission.js';
import { type CompiledPolicy, compileMatchConditions, evaluateMatchConditions } from '../policy/compile.js';
import type { FailurePolicy } from '../policy/types.js';
import type { MatchCondition } from './types.js';

export interface MatchBindings {
  object: unknown;
  oldObject: unknown;
  /** The AdmissionRequest as CEL sees it (review.ts celRequest). */
  request: unknown;
  /** For `authorizer`: who asks, whom to ask (none: the variable is left unbound), the request's resource (`authorizer.requestResource`). */
  user: UserInfo;
  authorizer: Authorizer | undefined;
  requestResource: ConstructorParameters<typeof AuthorizerValue>[2];
}

/** Matches: call the webhook. Skip: a condition was false, or errors under Ignore. Error: errors under Fail. */
export type MatchResult = { matches: boolean; error?: string };

const cache = new Map<string, CompiledPolicy>();

function compiled(conditions: readonly MatchCondition[], failurePolicy: FailurePolicy): CompiledPolicy {
  const key = JSON.stringify([failurePolicy, conditions]);
  let cp = cache.get(key);
  if (!cp) {
    cp = compileMatchConditions(conditions, failurePolicy);
    if (cache.size >= 1024) cache.clear();
    cache.set(key, cp);
  }
  return cp;
}

export function evaluateWebhookMatchConditions(
  conditions: readonly MatchCondition[],
  b: MatchBindings,
  failurePolicy: string,
): MatchResult {
  const cp = compiled(conditions, failurePolicy === 'Ignore' ? 'Ignore' : 'Fail');
  return evaluateMatchConditions(cp, {
    object: admissionValue(b.object),
    oldObject: admissionValue(b.oldObject),
    request: admissionValue(b.request),
    ...(b.authorizer
      ? { authorizer: authorizerValue(new AuthorizerValue(b.user, b.authorizer, b.requestResource)) }
      : {}),
  });
}
