// The Status a Fault answers with: kube's reason and text for the code, about the request, and
// what the Fault overrides.
import { describe, expect, it } from 'vitest';
import type { FaultStatus } from '../../../../apimachinery/apis/testing.js';
import type { Status } from '../../../../apimachinery/errors.js';
import { faultError } from '../../../../server/testing/fault-status.js';
import type { RequestFacts } from '../../../../server/testing/match.js';

const request: RequestFacts = {
  verb: 'update',
  apiGroup: 'cache.example.com',
  resource: 'caches',
  subresource: 'status',
  namespace: 'default',
  name: 'sessions',
  user: { name: 'admin', groups: [] },
  userAgent: '',
};

const status = (fields: Partial<Status>): Status => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: '',
  reason: '',
  code: 0,
  ...fields,
});

describe('faultError', () => {
  it.each<[string, FaultStatus, Status]>([
    [
      "409: the store's conflict on the object",
      { code: 409 },
      status({
        message:
          'Operation cannot be fulfilled on caches.cache.example.com "sessions": the object has been modified; please apply your changes to the latest version and try again',
        reason: 'Conflict',
        details: { name: 'sessions', group: 'cache.example.com', kind: 'caches' },
        code: 409,
      }),
    ],
    [
      '429: retry after a second',
      { code: 429 },
      status({
        message: 'Too many requests, please try again later.',
        reason: 'TooManyRequests',
        details: { retryAfterSeconds: 1 },
        code: 429,
      }),
    ],
    [
      '429 with its own Retry-After',
      { code: 429, retryAfterSeconds: 7 },
      status({
        message: 'Too many requests, please try again later.',
        reason: 'TooManyRequests',
        details: { retryAfterSeconds: 7 },
        code: 429,
      }),
    ],
    [
      "504: the request timeout filter's text",
      { code: 504 },
      status({
        message: 'Timeout: request did not complete within the allotted timeout',
        reason: 'Timeout',
        details: {},
        code: 504,
      }),
    ],
    [
      '503',
      { code: 503 },
      status({
        message: 'the server is currently unable to handle the request',
        reason: 'ServiceUnavailable',
        code: 503,
      }),
    ],
    [
      '500 names the Fault',
      { code: 500 },
      status({
        message: 'Internal error occurred: injected by Fault "f"',
        reason: 'InternalError',
        details: { causes: [{ message: 'injected by Fault "f"' }] },
        code: 500,
      }),
    ],
    [
      'a code without a kube text: the class reason',
      { code: 418 },
      status({ message: 'injected by Fault "f"', reason: 'BadRequest', code: 418 }),
    ],
    [
      'the Fault says the reason, text and Retry-After',
      { code: 503, reason: 'Maintenance', message: 'back soon', retryAfterSeconds: 3 },
      status({ message: 'back soon', reason: 'Maintenance', details: { retryAfterSeconds: 3 }, code: 503 }),
    ],
  ])('%s', (_name, spec, want) => {
    const err = faultError(spec, request, 'f');
    expect(err.code).toBe(spec.code);
    expect(err.status).toEqual(want);
    // Written in metav1.Status's field order: details before code.
    const order = ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code'];
    expect(Object.keys(err.status)).toEqual(order.filter((k) => k in want));
  });
});
