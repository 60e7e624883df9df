// The object a create or update sends, read and checked as kube's handlers check it: decoded in
// the body's media type, of the resource's apiVersion and kind (built-in kinds may omit them),
// naming the object and namespace the URL names.
import { type ApiError, badRequest, invalid, type Qualified } from '../../../apimachinery/errors.js';
import { goQuote, invalid as invalidField } from '../../../apimachinery/field-errors.js';
import type { ResourceDescriptor } from '../../registry/catalog.js';
import { auditOf } from '../../audit/context.js';
import { type JsonObject, type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import { qualifiedKind } from '../../registry/strategy.js';
import { LARGE_WRITE_BYTES, giveWayFor } from '../../registry/give-way.js';
import { ensureNamespaceMatchesRequest } from '../../registry/object-meta-ops.js';
import { gvkString } from '../../../apimachinery/versions.js';
import { type DecodedBody, decodeObjectBody, readBody } from '../body.js';
import { DecoderError, transformDecodeError } from '../../codecs/decode-error.js';
import { hasProtobufKind } from '../../../apimachinery/apis/kube-messages.js';
import { stringifyJSON } from '../../../apimachinery/json.js';
import { type Ctx, type RequestCtx, internalType, namespaceOf } from './context.js';

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
 * A decoded body as an object of the resource's kind and version, as the create and update
 * handlers' decoders check it: built-in kinds may omit type information (typed clients do),
 * custom resources may not (`checkCustom` judges their type first). Also serves resources that
 * are created and never stored (access reviews).
 */
export function checkBodyObject(
  desc: ResourceDescriptor,
  value: unknown,
  errorKind: Qualified,
  checkCustom?: (apiVersion: string, kind: string, obj: JsonObject) => void,
): KubeObject {
  if (!isJsonObject(value)) throw badRequest(`the request body must be a JSON object of kind ${desc.names.kind}`);
  const gv = desc.group ? `${desc.group}/${desc.version}` : desc.version;
  const apiVersion = value['apiVersion'];
  const kind = value['kind'];
  if (apiVersion === undefined && kind === undefined && desc.serving.typed) {
    value['apiVersion'] = gv;
    value['kind'] = desc.names.kind;
  } else {
    if (typeof kind !== 'string' || kind === '')
      throw badRequest("Object 'Kind' is missing in '" + stringifyJSON(value).slice(0, 200) + "'");
    // Another built-in kind decodes into its own Go type, which the codec cannot convert to this one.
    if (
      desc.serving.typed &&
      kind !== desc.names.kind &&
      typeof apiVersion === 'string' &&
      hasProtobufKind(apiVersion, kind)
    ) {
      const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
      const why = `converting (${version}.${kind}) to (${internalType(desc)}): unknown conversion`;
      throw transformDecodeError(desc.names.kind, new DecoderError(why, { version, kind }), Buffer.alloc(0));
    }
    checkCustom?.(typeof apiVersion === 'string' ? apiVersion : '', kind, value);
    if (typeof apiVersion !== 'string' || apiVersion === '')
      throw badRequest("Object 'apiVersion' is missing in '" + stringifyJSON(value).slice(0, 200) + "'");
    if (apiVersion !== gv)
      throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${gv})`);
    if (kind !== desc.names.kind)
      throw badRequest(`the kind in the data (${kind}) does not match the expected kind (${desc.names.kind})`);
  }
  const meta = value['metadata'];
  if (meta === undefined || meta === null) value['metadata'] = {};
  else if (!isJsonObject(meta)) throw invalid(errorKind, '', [invalidField('metadata', meta, 'must be an object')]);
  return value as unknown as KubeObject;
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
