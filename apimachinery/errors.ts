// Every error the server answers with is a metav1.Status built here, with kube-apiserver's HTTP
// code, reason, message and details. Handlers throw ApiError; the pipeline writes it.
import { type FieldError, errorBody, formatFieldError } from './field-errors.js';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
    this.name = 'ApiError';
  }
  get code(): number {
    return this.status.code;
  }
}

/** A group-qualified resource or kind: `caches.cache.example.com`, or `namespaces` in the core group. */
export interface Qualified {
  group: string;
  name: string;
}

export const qualifiedString = (q: Qualified): string => (q.group ? `${q.name}.${q.group}` : q.name);

function failure(code: number, reason: string, message: string, details?: StatusDetails): ApiError {
  // metav1.Status's field order, as kube writes it: details before code.
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
  return new ApiError(status);
}

const detailsOf = (resource: Qualified, name: string): StatusDetails => {
  const d: StatusDetails = { name };
  if (resource.group) d.group = resource.group;
  d.kind = resource.name;
  return d;
};

export const notFound = (resource: Qualified, name: string): ApiError =>
  failure(404, 'NotFound', `${qualifiedString(resource)} "${name}" not found`, detailsOf(resource, name));

/** kube's answer for a path it does not serve at all. */
export const notFoundPath = (): ApiError =>
  failure(404, 'NotFound', 'the server could not find the requested resource', {});

export const alreadyExists = (resource: Qualified, name: string): ApiError =>
  failure(409, 'AlreadyExists', `${qualifiedString(resource)} "${name}" already exists`, detailsOf(resource, name));

/** kube's NewGenerateNameConflict: the server picked the name, and every one it tried was taken. */
export function generateNameConflict(resource: Qualified, name: string): ApiError {
  const err = alreadyExists(resource, name);
  return new ApiError({
    ...err.status,
    message: `${qualifiedString(resource)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    details: { ...err.status.details, retryAfterSeconds: 1 },
  });
}

export const conflict = (resource: Qualified, name: string, why: string): ApiError =>
  failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedString(resource)} "${name}": ${why}`,
    detailsOf(resource, name),
  );

/** errors.NewApplyConflict: a server-side apply that would take fields other managers own. */
export const applyConflict = (causes: StatusCause[], message: string): ApiError =>
  failure(409, 'Conflict', message, { causes });

export const OBJECT_MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 422 with every field error in details.causes, the message joined as kube's aggregate. */
export function invalid(kind: Qualified, name: string, errs: FieldError[]): ApiError {
  const causes = errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
  const messages = [...new Set(errs.map(formatFieldError))];
  const agg = messages.length === 0 ? '' : messages.length === 1 ? `: ${messages[0]}` : `: [${messages.join(', ')}]`;
  // metav1.StatusDetails fields are omitempty: an option kind's Invalid (name "") has no name.
  const details: StatusDetails = name ? { name } : {};
  if (kind.group) details.group = kind.group;
  if (kind.name) details.kind = kind.name;
  details.causes = causes;
  return failure(422, 'Invalid', `${qualifiedString(kind)} "${name}" is invalid${agg}`, details);
}

export const badRequest = (message: string): ApiError => failure(400, 'BadRequest', message);

/** errors.NewGenericServerResponse(422, ...) as the patch handler returns it: reason Invalid, kube's fixed message, empty details. */
export const patchRejected = (): ApiError =>
  failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {});

export const unauthorized = (): ApiError => failure(401, 'Unauthorized', 'Unauthorized');

export const forbidden = (message: string, details?: StatusDetails): ApiError =>
  failure(403, 'Forbidden', message, details);

/**
 * go-restful's 405 for a built-in resource route without this method: kube's serviceErrorHandler
 * words it with NewGenericServerResponse, whose details are always there, empty here.
 */
export const methodNotSupported = (): ApiError =>
  failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});

/**
 * apierrors.NewMethodNotSupported, which the custom resource handler answers with for a verb a
 * resource or its subresource does not serve: `create is not supported on resources of kind "caches.cache.example.com"`.
 */
export const methodNotSupportedOn = (resource: Qualified, verb: string, message?: string): ApiError => {
  const details: StatusDetails = {};
  if (resource.group) details.group = resource.group;
  details.kind = resource.name;
  return failure(
    405,
    'MethodNotAllowed',
    message ?? `${verb} is not supported on resources of kind ${JSON.stringify(qualifiedString(resource))}`,
    details,
  );
};

export const notAcceptable = (accepted: string[]): ApiError =>
  failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);

/** negotiation.errUnsupportedMediaType: its Status has no details. */
export const unsupportedMediaType = (accepted: readonly string[]): ApiError =>
  failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );

export const requestEntityTooLarge = (limit: number): ApiError =>
  failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);

export const resourceExpired = (message: string): ApiError => failure(410, 'Expired', message);

export const serviceUnavailable = (message: string): ApiError => failure(503, 'ServiceUnavailable', message);

/** kube's NewTimeoutError: `details` present, if empty (retryAfterSeconds 0 is omitted). */
export const timeout = (message: string): ApiError => failure(504, 'Timeout', message, {});

export function internalError(err: unknown): ApiError {
  const msg = err instanceof Error ? err.message : String(err);
  return failure(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
}

/** Any thrown value as a Status: ApiErrors pass through, anything else is a 500. */
export function toApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : internalError(err);
}

/**
 * The success Status kube returns for a custom resource's delete: no message, reason or code (its
 * handler leaves Code zero, which JSON omits).
 */
export function successStatus(
  details: StatusDetails,
): Omit<Status, 'message' | 'reason' | 'code'> & { details: StatusDetails } {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/**
 * utilerrors.NewAggregate(...).Error(): one message as it is; several deduplicated, in order, as
 * `[a, b]`; none, ''.
 */
export function aggregateErrors(errors: readonly string[]): string {
  if (errors.length === 0) return '';
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** For cleanup loops, where an object that is already gone is the wanted outcome. */
export function ignoreNotFound(err: unknown): undefined {
  if (err instanceof ApiError && err.code === 404) return undefined;
  throw err;
}

/** A read needs a revision the watch cache has not reached in time (kube's TooLargeResourceVersionError). */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}
