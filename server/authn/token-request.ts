// The serviceaccounts/token subresource (authentication.k8s.io/v1 TokenRequest) as kube's TokenREST
// answers it (pkg/registry/core/serviceaccount/storage/token.go): the body's name and namespace must
// match the URL, expirationSeconds defaults to 3600 and must lie in [600, 2^32], audiences default to
// the API audiences, a boundObjectRef may only name a Secret here (Pods and Nodes are not served),
// and the answer carries the signed token and when it expires.
import { ApiError, badRequest, conflict, invalid, notFound } from '../../apimachinery/errors.js';
import { invalid as invalidField, type FieldError } from '../../apimachinery/field-errors.js';
import type { LiveObject, TokenSigner } from './service-account-token.js';
import { serviceAccountClaims } from './service-account-token.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { fromAPIVersionAndKind, gvkString } from '../../apimachinery/versions.js';

const TOKEN_REQUEST_KIND = { group: 'authentication.k8s.io', name: 'TokenRequest' };
/** SetDefaults_TokenRequestSpec. */
const DEFAULT_EXPIRATION_SECONDS = 3600;
/** validation.MinTokenAgeSec. */
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

export interface TokenRequest {
  apiVersion: 'authentication.k8s.io/v1';
  kind: 'TokenRequest';
  metadata: { name?: string; namespace?: string; creationTimestamp?: string; [k: string]: unknown };
  spec: { audiences: string[]; expirationSeconds: number; boundObjectRef?: BoundObjectReference };
  status?: { token: string; expirationTimestamp: string };
}

/** The ServiceAccount the token is for, as the registry stores it. */
interface ServiceAccountObject {
  metadata: { name: string; namespace: string; uid: string };
}

/** A decode failure, worded as kube's for a body it cannot read into a TokenRequest. */
const decodeError = (detail: string): ApiError =>
  badRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: ${detail}`);

function str(v: unknown, field: string): string | ApiError {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string')
    return decodeError(`json: cannot unmarshal ${typeof v} into Go struct field ${field} of type string`);
  return v;
}

/** The body read into a defaulted TokenRequest (type errors are 400s, as kube's decoding makes them). */
export function decodeTokenRequest(body: unknown): TokenRequest | ApiError {
  if (!isJsonObject(body))
    return decodeError('json: cannot unmarshal non-object into Go value of type v1.TokenRequest');
  const metadata = isJsonObject(body.metadata) ? body.metadata : {};
  const name = str(metadata.name, 'ObjectMeta.metadata.name');
  if (name instanceof ApiError) return name;
  const namespace = str(metadata.namespace, 'ObjectMeta.metadata.namespace');
  if (namespace instanceof ApiError) return namespace;
  const spec = isJsonObject(body.spec) ? body.spec : {};
  let audiences: string[] = [];
  if (spec.audiences !== undefined && spec.audiences !== null) {
    if (!Array.isArray(spec.audiences) || !spec.audiences.every((a): a is string => typeof a === 'string')) {
      return decodeError(
        'json: cannot unmarshal into Go struct field TokenRequestSpec.spec.audiences of type []string',
      );
    }
    audiences = spec.audiences;
  }
  let expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
  const exp: unknown = spec.expirationSeconds;
  if (exp !== undefined && exp !== null) {
    const n = typeof exp === 'bigint' ? Number(exp) : exp;
    if (typeof n !== 'number' || !Number.isInteger(n)) {
      return decodeError(
        `json: cannot unmarshal ${typeof exp} into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`,
      );
    }
    expirationSeconds = n;
  }
  const out: TokenRequest = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { ...metadata, name, namespace },
    spec: { audiences, expirationSeconds },
  };
  if (isJsonObject(spec.boundObjectRef)) {
    const ref: BoundObjectReference = {};
    for (const f of ['kind', 'apiVersion', 'name', 'uid'] as const) {
      const v = str(spec.boundObjectRef[f], `BoundObjectReference.spec.boundObjectRef.${f}`);
      if (v instanceof ApiError) return v;
      if (v !== '') ref[f] = v;
    }
    out.spec.boundObjectRef = ref;
  }
  return out;
}

/** ValidateTokenRequest: the expiration's bounds. */
export function validateTokenRequest(req: TokenRequest): FieldError[] {
  const errs: FieldError[] = [];
  const exp = req.spec.expirationSeconds;
  if (exp < MIN_EXPIRATION_SECONDS)
    errs.push(invalidField('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
  if (exp > MAX_EXPIRATION_SECONDS)
    errs.push(invalidField('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

export interface TokenRequestContext {
  /** From the URL: /api/v1/namespaces/{namespace}/serviceaccounts/{name}/token. */
  namespace: string;
  name: string;
  /** The ServiceAccount, or undefined when it does not exist (404). */
  serviceAccount: ServiceAccountObject | undefined;
  /** --api-audiences: the default audiences. */
  apiAudiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0 or absent for none. */
  maxExpirationSeconds?: number;
  /** Secrets of the namespace, for a Secret-bound token. */
  secret: (namespace: string, name: string) => Promise<LiveObject | undefined>;
}

type PreparedTokenRequest =
  | {
      kind: 'ok';
      request: TokenRequest;
      serviceAccount: ServiceAccountObject;
      boundSecret?: { name: string; uid: string };
      warnings: string[];
    }
  | { kind: 'error'; error: ApiError };

/**
 * Everything TokenREST.Create checks before signing, in its order: body name and namespace against
 * the URL, the ServiceAccount, defaults, validation, the bound object, the maximum expiration.
 */
export async function prepareTokenRequest(body: unknown, ctx: TokenRequestContext): Promise<PreparedTokenRequest> {
  const fail = (error: ApiError): PreparedTokenRequest => ({ kind: 'error', error });
  const decoded = decodeTokenRequest(body);
  if (decoded instanceof ApiError) return fail(decoded);
  const req = decoded;
  if (req.metadata.name && req.metadata.name !== ctx.name) {
    return fail(
      invalid(TOKEN_REQUEST_KIND, ctx.name, [
        invalidField('metadata.name', req.metadata.name, 'must match the service account name if specified'),
      ]),
    );
  }
  if (req.metadata.namespace && req.metadata.namespace !== ctx.namespace) {
    return fail(
      invalid(TOKEN_REQUEST_KIND, ctx.name, [
        invalidField(
          'metadata.namespace',
          req.metadata.namespace,
          'must match the service account namespace if specified',
        ),
      ]),
    );
  }
  const sa = ctx.serviceAccount;
  if (!sa) return fail(notFound({ group: '', name: 'serviceaccounts' }, ctx.name));
  if (req.spec.audiences.length === 0) req.spec.audiences = [...ctx.apiAudiences];
  req.metadata.name ||= sa.metadata.name;
  req.metadata.namespace ||= sa.metadata.namespace;
  const errs = validateTokenRequest(req);
  if (errs.length > 0) return fail(invalid(TOKEN_REQUEST_KIND, '', errs));

  let boundSecret: { name: string; uid: string } | undefined;
  const ref = req.spec.boundObjectRef;
  if (ref) {
    const gvk = fromAPIVersionAndKind(ref.apiVersion ?? '', ref.kind ?? '');
    const name = ref.name ?? '';
    if (gvk.group === '' && ref.kind === 'Secret') {
      const secret = await ctx.secret(ctx.namespace, name);
      if (!secret) return fail(notFound({ group: '', name: 'secrets' }, name));
      boundSecret = { name, uid: secret.uid };
    } else if (gvk.group === '' && ref.kind === 'Pod') {
      // Pods are not served here: kube's lookup would find none.
      return fail(notFound({ group: '', name: 'pods' }, name));
    } else if (gvk.group === '' && ref.kind === 'Node') {
      return fail(notFound({ group: '', name: 'nodes' }, name));
    } else {
      return fail(badRequest(`cannot bind token to object of type ${gvkString(gvk)}`));
    }
    if (ref.uid && ref.uid !== boundSecret.uid) {
      return fail(
        conflict(
          { group: gvk.group, name: ref.kind },
          name,
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        ),
      );
    }
  }

  const warnings: string[] = [];
  const max = ctx.maxExpirationSeconds ?? 0;
  if (max > 0 && req.spec.expirationSeconds > max) {
    warnings.push(`requested expiration of ${req.spec.expirationSeconds} seconds shortened to ${max} seconds`);
    req.spec.expirationSeconds = max;
  }
  const out: PreparedTokenRequest = { kind: 'ok', request: req, serviceAccount: sa, warnings };
  if (boundSecret) out.boundSecret = boundSecret;
  return out;
}

/** RFC 3339 to the second, as metav1.Time marshals. */
const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Signs the token and fills the answer: creationTimestamp now, status.token and expirationTimestamp. */
export async function issueTokenRequest(
  prepared: Extract<PreparedTokenRequest, { kind: 'ok' }>,
  issuer: TokenSigner,
  now: Date,
): Promise<TokenRequest> {
  const { request, serviceAccount: sa } = prepared;
  const claimOpts: Parameters<typeof serviceAccountClaims>[1] = {
    audiences: request.spec.audiences,
    expirationSeconds: request.spec.expirationSeconds,
    now,
  };
  if (prepared.boundSecret) claimOpts.secret = prepared.boundSecret;
  const claims = serviceAccountClaims(
    { namespace: sa.metadata.namespace, name: sa.metadata.name, uid: sa.metadata.uid },
    claimOpts,
  );
  const token = await issuer.generateToken(claims);
  return {
    ...request,
    metadata: { ...request.metadata, creationTimestamp: rfc3339(now.getTime()) },
    status: { token, expirationTimestamp: rfc3339(now.getTime() + request.spec.expirationSeconds * 1000) },
  };
}
