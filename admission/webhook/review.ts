// AdmissionReview requests and responses (k8s.io/apiserver/pkg/admission/plugin/webhook/request
// and errors): the review a webhook is sent, in the first of its admissionReviewVersions we speak;
// the checks on its answer (VerifyAdmissionResponse); a denial as kube's Status (ToStatusErr).
import { ApiError, badRequest, type Status, type StatusDetails } from '../../apimachinery/errors.js';
import { goQuote } from '../../apimachinery/field-errors.js';
import { decodeGoBase64 } from '../../apimachinery/go-base64.js';
import { isJsonObject, type JsonObject, type KubeObject } from '../../apimachinery/object.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { parseGroupVersion } from '../../apimachinery/versions.js';
import { WebhookCallError } from '../../webhook/client.js';
import { jsonKind } from '../../apimachinery/json.js';
import type { Operation } from '../interface.js';
import type { GroupVersionKind, GroupVersionResource } from './rules.js';

type ReviewVersion = 'v1' | 'v1beta1';

/** CreateAdmissionObjects: the first of the webhook's versions we speak. */
export function reviewVersionFor(versions: readonly string[] | undefined): ReviewVersion | undefined {
  for (const v of versions ?? []) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

export const NO_KNOWN_REVIEW_VERSION = 'webhook does not accept known AdmissionReview versions (v1, v1beta1)';

/** What a review says about the request. */
export interface ReviewRequest {
  uid: string;
  /** The kind and resource the webhook is called for (a matchPolicy Equivalent match may name another version). */
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource: string;
  /** The request's own. */
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource: string;
  name: string;
  namespace: string;
  operation: Operation;
  userInfo: UserInfo | undefined;
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
  dryRun: boolean;
  options: JsonObject | undefined;
}

/** The options object kube sends for an operation when the caller gave none. */
export function defaultOptions(operation: Operation, dryRun: boolean): JsonObject | undefined {
  const kind = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' }[operation as string];
  if (!kind) return undefined;
  return { kind, apiVersion: 'meta.k8s.io/v1', ...(dryRun ? { dryRun: ['All'] } : {}) };
}

const gvk = (k: GroupVersionKind): JsonObject => ({ group: k.group, version: k.version, kind: k.kind });
const gvr = (r: GroupVersionResource): JsonObject => ({ group: r.group, version: r.version, resource: r.resource });

/** authenticationv1.UserInfo with Go's omitempty fields. */
function userInfoJSON(u: UserInfo | undefined): JsonObject {
  const out: JsonObject = {};
  if (u?.name) out['username'] = u.name;
  if (u?.uid) out['uid'] = u.uid;
  if (u?.groups && u.groups.length > 0) out['groups'] = [...u.groups];
  if (u?.extra && Object.keys(u.extra).length > 0)
    out['extra'] = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

/** admissionv1.AdmissionRequest, fields in Go's order with its omitempty rules. */
export function admissionRequest(r: ReviewRequest): JsonObject {
  const out: JsonObject = { uid: r.uid, kind: gvk(r.kind), resource: gvr(r.resource) };
  if (r.subResource) out['subResource'] = r.subResource;
  out['requestKind'] = gvk(r.requestKind);
  out['requestResource'] = gvr(r.requestResource);
  if (r.requestSubResource) out['requestSubResource'] = r.requestSubResource;
  if (r.name) out['name'] = r.name;
  if (r.namespace) out['namespace'] = r.namespace;
  out['operation'] = r.operation;
  out['userInfo'] = userInfoJSON(r.userInfo);
  // A RawExtension without an object marshals as null.
  out['object'] = (r.object ?? null) as JsonObject | null;
  out['oldObject'] = (r.oldObject ?? null) as JsonObject | null;
  out['dryRun'] = r.dryRun;
  out['options'] = r.options ?? null;
  return out;
}

/** The AdmissionReview POSTed to a webhook. */
export function admissionReview(version: ReviewVersion, r: ReviewRequest): JsonObject {
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request: admissionRequest(r) };
}

/** `request` as matchConditions see it (cel's CreateAdmissionRequest: the review's request without uid and objects). */
export function celRequest(r: ReviewRequest): JsonObject {
  const { uid: _uid, object: _o, oldObject: _old, ...rest } = admissionRequest(r);
  return rest;
}

// ---------------------------------------------------------------------------------------------
// The answer

export interface AdmissionResponse {
  allowed: boolean;
  /** Decoded; empty for none. */
  patch: Buffer;
  /** "" for none; v1beta1 answers with a patch are taken as JSONPatch. */
  patchType: string;
  result: JsonObject | undefined;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/**
 * encoding/json decoding the body into admissionv1.AdmissionReview: the type errors (and Go's
 * base64 error for `patch`) client-go's Into would give. Throws WebhookCallError.
 */
export function decodeAdmissionReview(doc: JsonObject, version: ReviewVersion): { response: JsonObject | undefined } {
  const typeError = (v: unknown, ok: (v: unknown) => boolean, struct: string, field: string, goType: string): void => {
    if (v === undefined || v === null || ok(v)) return;
    throw new WebhookCallError(
      `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${field} of type ${goType}`,
    );
  };
  const isString = (v: unknown): boolean => typeof v === 'string';
  const response = doc['response'];
  typeError(response, isJsonObject, 'AdmissionReview', 'response', `${version}.AdmissionResponse`);
  if (!isJsonObject(response)) return { response: undefined };
  const R = 'AdmissionResponse';
  typeError(response['uid'], isString, R, 'response.uid', 'types.UID');
  typeError(response['allowed'], (v) => typeof v === 'boolean', R, 'response.allowed', 'bool');
  const status = response['status'];
  typeError(status, isJsonObject, R, 'response.status', 'v1.Status');
  if (isJsonObject(status)) {
    for (const f of ['status', 'message', 'reason'])
      typeError(status[f], isString, 'Status', `response.status.${f}`, f === 'reason' ? 'v1.StatusReason' : 'string');
    typeError(
      status['code'],
      (v) => typeof v === 'number' && Number.isInteger(v),
      'Status',
      'response.status.code',
      'int32',
    );
    typeError(status['details'], isJsonObject, 'Status', 'response.status.details', 'v1.StatusDetails');
  }
  typeError(response['patch'], isString, R, 'response.patch', '[]uint8');
  typeError(response['patchType'], isString, R, 'response.patchType', `${version}.PatchType`);
  typeError(
    response['auditAnnotations'],
    (v) => isJsonObject(v) && Object.values(v).every((x) => typeof x === 'string'),
    R,
    'response.auditAnnotations',
    'map[string]string',
  );
  typeError(
    response['warnings'],
    (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'),
    R,
    'response.warnings',
    '[]string',
  );
  if (typeof response['patch'] === 'string') {
    const decoded = decodeGoBase64(response['patch']);
    if (!decoded.ok) throw new WebhookCallError(decoded.error);
  }
  return { response };
}

/** VerifyAdmissionResponse. Throws a plain Error with kube's text. */
export function verifyAdmissionResponse(
  uid: string,
  mutating: boolean,
  version: ReviewVersion,
  doc: JsonObject,
): AdmissionResponse {
  const r = doc['response'];
  if (!isJsonObject(r)) throw new Error('webhook response was absent');
  const patch =
    typeof r['patch'] === 'string' ? (decodeGoBase64(r['patch']) as { bytes: Buffer }).bytes : Buffer.alloc(0);
  const hasPatchType = typeof r['patchType'] === 'string';
  let patchType = '';
  if (version === 'v1') {
    const got = typeof r['uid'] === 'string' ? r['uid'] : '';
    if (got !== uid) throw new Error(`expected response.uid=${goQuote(uid)}, got ${goQuote(got)}`);
    const gv = parseGroupVersion(typeof doc['apiVersion'] === 'string' ? doc['apiVersion'] : '') ?? {
      group: '',
      version: '',
    };
    const kind = typeof doc['kind'] === 'string' ? doc['kind'] : '';
    if (gv.group !== 'admission.k8s.io' || gv.version !== 'v1' || kind !== 'AdmissionReview') {
      throw new Error(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gv.group}/${gv.version}, Kind=${kind}`,
      );
    }
    if (mutating) {
      if (patch.length > 0 && !hasPatchType)
        throw new Error('webhook returned response.patch but not response.patchType');
      if (hasPatchType && patch.length === 0)
        throw new Error('webhook returned response.patchType but not response.patch');
      if (hasPatchType) {
        patchType = r['patchType'] as string;
        if (patchType === '') throw new Error(`webhook returned invalid response.patchType of ${goQuote(patchType)}`);
      }
    } else {
      if (patch.length > 0) throw new Error('validating webhook may not return response.patch');
      if (hasPatchType) throw new Error('validating webhook may not return response.patchType');
    }
  } else if (mutating && patch.length > 0) {
    // v1beta1 never checked the patch type; the only one there is.
    patchType = 'JSONPatch';
  }
  return {
    allowed: r['allowed'] === true,
    patch: mutating ? patch : Buffer.alloc(0),
    patchType: mutating ? patchType : '',
    result: isJsonObject(r['status']) ? r['status'] : undefined,
    warnings: Array.isArray(r['warnings']) ? (r['warnings'] as string[]) : [],
    auditAnnotations: isJsonObject(r['auditAnnotations']) ? (r['auditAnnotations'] as Record<string, string>) : {},
  };
}

/** webhookerrors.ToStatusErr: a denial, with the webhook's status code (at least 400) and reason. */
export function toStatusError(webhookName: string, result: JsonObject | undefined): ApiError {
  const deniedBy = `admission webhook ${goQuote(webhookName)} denied the request`;
  const r = result ?? {};
  const code = typeof r['code'] === 'number' && r['code'] >= 400 ? r['code'] : 400;
  const message = typeof r['message'] === 'string' ? r['message'] : '';
  const reason = typeof r['reason'] === 'string' ? r['reason'] : '';
  const text = message
    ? `${deniedBy}: ${message}`
    : reason
      ? `${deniedBy}: ${reason}`
      : `${deniedBy} without explanation`;
  const details = isJsonObject(r['details']) ? { details: r['details'] as StatusDetails } : {};
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: text,
    reason,
    ...details,
    code,
  };
  return new ApiError(status);
}

/** webhookerrors.NewDryRunUnsupportedErr. */
export const dryRunUnsupported = (webhookName: string): ApiError =>
  badRequest(`admission webhook ${goQuote(webhookName)} does not support dry run`);
