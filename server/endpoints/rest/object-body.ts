// The object a create or update sends, read and checked as kube's handlers check it: decoded in
// the body's media type, of the resource's apiVersion and kind (built-in kinds may omit them),
// naming the object and namespace the URL names.
import { type ApiError, badRequest, invalid } from '../../../apimachinery/errors.js';
import { goQuote, invalid as invalidField } from '../../../apimachinery/field-errors.js';
import { auditOf } from '../../audit/context.js';
import { type JsonObject, type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import { qualifiedKind } from '../../registry/strategy.js';
import { LARGE_WRITE_BYTES, giveWayFor } from '../../registry/give-way.js';
import { ensureNamespaceMatchesRequest } from '../../registry/object-meta-ops.js';
import { gvkString } from '../../../apimachinery/versions.js';
import { type DecodedBody, decodeObjectBody, readBody } from '../body.js';
import { checkBodyObject } from '../body-object.js';
import { type Ctx, type RequestCtx, namespaceOf } from './context.js';

/** Decodes an object body and checks it is an object of this resource's kind and version. */
export async function readObject(ctx: Ctx): Promise<{ obj: KubeObject; decoded: DecodedBody; large: boolean }> {
  const body = await readBody(ctx.req, ctx.maxRequestBodyBytes);
  const large = body.length >= LARGE_WRITE_BYTES;
  // Large bodies that arrive together are decoded one per turn of the loop, not all in one.
  await giveWayFor(large);
  const decoded = await decodeObjectBody(
    body,
    ctx.req.headers['content-type'],
    ctx.desc.serving.typed,
    ctx.store.strategy.exactIntegers,
    ctx.desc.names.kind,
  );
  await giveWayFor(large);
  const obj = checkObject(ctx, decoded.value);
  auditOf(ctx.res)?.requestObject(obj);
  return { obj, decoded, large };
}

/** kube's transformDecodeError for a body that failed strict decoding: a 400. */
export const decodeError =
  (ctx: Ctx) =>
  (message: string): ApiError =>
    badRequest(
      `${ctx.desc.names.kind} in version ${goQuote(ctx.desc.version)} cannot be handled as a ${ctx.desc.names.kind}: ${message}`,
    );

export function checkObject(ctx: Ctx, value: unknown): KubeObject {
  const check = ctx.desc.serving.typed
    ? undefined
    : (apiVersion: string, kind: string, obj: JsonObject) => checkCustomResourceType(ctx, obj, apiVersion, kind);
  return checkBodyObject(ctx.desc, value, qualifiedKind(ctx.store.kind), check);
}

/**
 * A custom resource body of another group (or none) fails in the decoder: crConverter cannot
 * convert it, and transformDecodeError wraps that. Another version of the group passes the decoder
 * and is refused by the handler's API version check (after this). Another kind of the right group
 * version is decoded and converted, then refused by the custom resource validator's
 * ValidateTypeMeta as a 422 on the kind the body names (the strategy types objects by their own GVK).
 */
function checkCustomResourceType(
  ctx: RequestCtx,
  value: Record<string, unknown>,
  apiVersion: string,
  kind: string,
): void {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (version.includes('/')) throw badRequest(`unexpected GroupVersion string: ${apiVersion}`);
  const gv = `${ctx.desc.group}/${ctx.desc.version}`;
  if (group !== ctx.desc.group) {
    const from = gvkString({ group, version, kind });
    throw badRequest(
      `${kind} in version ${goQuote(version)} cannot be handled as a ${ctx.desc.names.kind}: ${from} is unstructured and is not suitable for converting to ${goQuote(gv)}`,
    );
  }
  if (version === ctx.desc.version && kind !== ctx.desc.names.kind) {
    const meta = value['metadata'];
    const name = isJsonObject(meta) && typeof meta['name'] === 'string' ? meta['name'] : '';
    throw invalid({ group, name: kind }, name, [invalidField('kind', kind, `must be ${ctx.desc.names.kind}`)]);
  }
}

/** The update handler's checkName: the body must name the object the URL names. */
export function checkName(given: unknown, name: string): void {
  if (given === undefined || given === '')
    throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  if (given !== name)
    throw badRequest(`the name of the object (${String(given)}) does not match the name on the URL (${name})`);
}

/** The handlers' EnsureObjectNamespaceMatchesRequestNamespace, on the object the client sent or patched. */
export const checkNamespace = (ctx: RequestCtx, obj: KubeObject): void =>
  ensureNamespaceMatchesRequest(namespaceOf(ctx) ?? '', obj.metadata);
