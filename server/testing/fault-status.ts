// The Status a Fault answers with: kube's reason and text for the code, about the request it
// matched (a 409 reads as the store's conflict on that object), unless the Fault says otherwise.
// Pure.
import type { FaultStatus } from '../../apimachinery/apis/testing.js';
import {
  ApiError,
  OBJECT_MODIFIED,
  badRequest,
  conflict,
  forbidden,
  internalError,
  notFound,
  resourceExpired,
  serviceUnavailable,
  timeout,
} from '../../apimachinery/errors.js';
import type { RequestFacts } from './match.js';

const resourceOf = (r: RequestFacts) => ({ group: r.apiGroup, name: r.resource });

/** kube's answer for each code a Fault is likely to send, as its handlers and filters word it. */
const KUBE_ANSWERS: Readonly<Record<number, (r: RequestFacts, fault: string) => ApiError>> = {
  400: () => badRequest('the server rejected our request for an unknown reason'),
  403: (r) =>
    forbidden(`${r.resource} "${r.name}" is forbidden: injected by a Fault`, {
      name: r.name,
      ...(r.apiGroup ? { group: r.apiGroup } : {}),
      kind: r.resource,
    }),
  404: (r) => notFound(resourceOf(r), r.name),
  409: (r) => conflict(resourceOf(r), r.name, OBJECT_MODIFIED),
  410: () => resourceExpired('The resourceVersion for the provided watch is too old.'),
  429: () => tooManyRequests(),
  500: (_r, fault) => internalError(`injected by Fault ${JSON.stringify(fault)}`),
  503: () => serviceUnavailable('the server is currently unable to handle the request'),
  504: () => timeout('Timeout: request did not complete within the allotted timeout'),
};

/** apierrors.NewTooManyRequests as kube's filters send it: retry after a second. */
function tooManyRequests(): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Too many requests, please try again later.',
    reason: 'TooManyRequests',
    details: { retryAfterSeconds: 1 },
    code: 429,
  });
}

/** The Status `spec` asks for, on the request `r`, from the Fault named `fault`. */
export function faultError(spec: FaultStatus, r: RequestFacts, fault: string): ApiError {
  const kube = KUBE_ANSWERS[spec.code];
  const base = kube
    ? kube(r, fault).status
    : {
        kind: 'Status' as const,
        apiVersion: 'v1' as const,
        metadata: {},
        status: 'Failure' as const,
        message: `injected by Fault ${JSON.stringify(fault)}`,
        reason: spec.code < 500 ? 'BadRequest' : 'InternalError',
        code: spec.code,
      };
  const details =
    spec.retryAfterSeconds !== undefined
      ? { ...base.details, retryAfterSeconds: spec.retryAfterSeconds }
      : base.details;
  // metav1.Status's field order, as kube writes it.
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: spec.message ?? base.message,
    reason: spec.reason ?? base.reason,
    ...(details ? { details } : {}),
    code: spec.code,
  });
}
