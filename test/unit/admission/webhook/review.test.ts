// AdmissionReview building and answer checks (request/admissionreview.go, errors), table-first.
import { describe, expect, it } from 'vitest';
import {
  admissionRequest,
  celRequest,
  reviewVersionFor,
  toStatusError,
  verifyAdmissionResponse,
  type ReviewRequest,
} from '../../../../admission/webhook/review.js';

const UID = '00000000-0000-0000-0000-000000000001';
const v1 = (response: unknown, over: Record<string, unknown> = {}) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  response,
  ...over,
});
const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('reviewVersionFor', () => {
  it.each([
    [['v1', 'v1beta1'], 'v1'],
    [['v1beta1', 'v1'], 'v1beta1'],
    [['v2', 'v1'], 'v1'],
    [['v2'], undefined],
    [undefined, undefined],
  ])('%j: %s', (versions, want) => {
    expect(reviewVersionFor(versions)).toBe(want);
  });
});

describe('verifyAdmissionResponse', () => {
  it.each([
    ['v1', false, v1(undefined), 'webhook response was absent'],
    ['v1', false, v1({ uid: 'x', allowed: true }), `expected response.uid="${UID}", got "x"`],
    [
      'v1',
      false,
      v1({ uid: UID, allowed: true }, { apiVersion: 'admission.k8s.io/v1beta1' }),
      'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview',
    ],
    [
      'v1',
      false,
      v1({ uid: UID, allowed: true }, { apiVersion: undefined, kind: undefined }),
      'expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind=',
    ],
    [
      'v1',
      false,
      v1({ uid: UID, allowed: true, patch: b64('[]') }),
      'validating webhook may not return response.patch',
    ],
    [
      'v1',
      false,
      v1({ uid: UID, allowed: true, patchType: 'JSONPatch' }),
      'validating webhook may not return response.patchType',
    ],
    [
      'v1',
      true,
      v1({ uid: UID, allowed: true, patchType: '', patch: b64('[]') }),
      'webhook returned invalid response.patchType of ""',
    ],
    ['v1beta1', false, { response: null }, 'webhook response was absent'],
  ] as const)('%s mutating=%s %j: %s', (version, mutating, doc, want) => {
    expect(() => verifyAdmissionResponse(UID, mutating, version, doc as never)).toThrow(want);
  });

  it('v1beta1 checks neither uid nor kind, and takes a patch as JSONPatch', () => {
    const r = verifyAdmissionResponse(UID, true, 'v1beta1', {
      response: { uid: 'other', allowed: true, patch: b64('[{"op":"remove","path":"/a"}]') },
    });
    expect(r).toMatchObject({ allowed: true, patchType: 'JSONPatch', warnings: [], auditAnnotations: {} });
    expect(r.patch.toString()).toBe('[{"op":"remove","path":"/a"}]');
  });
});

describe('toStatusError', () => {
  it.each([
    [undefined, 400, '', 'admission webhook "w" denied the request without explanation'],
    [{ message: 'no' }, 400, '', 'admission webhook "w" denied the request: no'],
    [{ reason: 'Nope', code: 302 }, 400, 'Nope', 'admission webhook "w" denied the request: Nope'],
    [{ message: 'm', reason: 'R', code: 409 }, 409, 'R', 'admission webhook "w" denied the request: m'],
  ])('%j', (result, code, reason, message) => {
    expect(toStatusError('w', result).status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
    });
  });

  it("keeps the webhook's details", () => {
    expect(
      toStatusError('w', { message: 'm', details: { name: 'x', causes: [{ field: 'spec' }] } }).status.details,
    ).toEqual({ name: 'x', causes: [{ field: 'spec' }] });
  });
});

describe('admissionRequest', () => {
  const base: ReviewRequest = {
    uid: UID,
    kind: { group: '', version: 'v1', kind: 'Namespace' },
    resource: { group: '', version: 'v1', resource: 'namespaces' },
    subResource: '',
    requestKind: { group: '', version: 'v1', kind: 'Namespace' },
    requestResource: { group: '', version: 'v1', resource: 'namespaces' },
    requestSubResource: '',
    name: '',
    namespace: '',
    operation: 'DELETE',
    userInfo: undefined,
    object: undefined,
    oldObject: undefined,
    dryRun: false,
    options: undefined,
  };

  it("leaves out Go's omitempty fields and writes absent objects as null", () => {
    expect(admissionRequest(base)).toEqual({
      uid: UID,
      kind: base.kind,
      resource: base.resource,
      requestKind: base.requestKind,
      requestResource: base.requestResource,
      operation: 'DELETE',
      userInfo: {},
      object: null,
      oldObject: null,
      dryRun: false,
      options: null,
    });
  });

  it('is what CEL sees as request, without uid and objects', () => {
    expect(Object.keys(celRequest({ ...base, name: 'n' }))).toEqual([
      'kind',
      'resource',
      'requestKind',
      'requestResource',
      'name',
      'operation',
      'userInfo',
      'dryRun',
      'options',
    ]);
  });
});
