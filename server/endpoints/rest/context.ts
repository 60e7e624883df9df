// What every REST verb shares: the request's context (the resource, its store, who asks, the
// negotiated output), the 405 for a verb a resource lacks, and an object answered in the version,
// kind and representation (object, Table, PartialObjectMetadata) the client asked for.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiError, badRequest, methodNotSupported, methodNotSupportedOn } from '../../../apimachinery/errors.js';
import { goQuote } from '../../../apimachinery/field-errors.js';
import type { ResourceDescriptor } from '../../registry/catalog.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { qualifiedResource } from '../../registry/strategy.js';
import type { Store } from '../../registry/store.js';
import type { UserInfo } from '../../../apimachinery/user.js';
import type { RequestInfo } from '../../request/request-info.js';
import { type IncludeObject, buildTable, partialObjectMetadata } from '../table.js';
import { type Negotiated, YAML_MEDIA_TYPE, checkOutputTarget } from '../output.js';
import { type Body, auditKeepsResponse, encodeBody, jsonDocument, sendBody, sendJson } from '../respond.js';
import { encodedOnce } from '../encoded.js';
import type { WatchRegistry } from '../watch/registry.js';
import { internalType } from '../body-object.js';

export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  query: URLSearchParams;
  desc: ResourceDescriptor;
  store: Store;
  /** Open watches, ended together when the server shuts down. */
  watches: WatchRegistry;
  /** The largest body a write may send. */
  maxRequestBodyBytes: number;
  /** Who asked (admission sees it). */
  user: UserInfo;
  /** What the answer is written as, negotiated before the handler does anything. */
  output: Negotiated;
}

/** What a handler knows before it answers: everything but the response. */
export type RequestCtx = Omit<Ctx, 'res'>;

/**
 * A verb the resource (or subresource) does not serve: go-restful's generic 405 for built-in
 * kinds, apierrors.NewMethodNotSupported from the custom resource handler for the others.
 */
export function verbNotSupported(ctx: RequestCtx, message?: string): ApiError {
  return ctx.desc.serving.unsupported === 'route'
    ? methodNotSupported()
    : methodNotSupportedOn(qualifiedResource(ctx.store.kind), ctx.info.verb, message);
}

/** What Go's %T prints for the object a handler holds: the internal type, or Unstructured for custom resources. */
export function goType(ctx: RequestCtx, list: boolean): string {
  const suffix = list ? 'List' : '';
  if (!ctx.desc.serving.typed) return `*unstructured.Unstructured${suffix}`;
  return `*${internalType(ctx.desc)}${suffix}`;
}

export const namespaceOf = (ctx: RequestCtx): string | undefined =>
  ctx.desc.namespaced ? ctx.info.namespace || undefined : undefined;

export const requestApiVersion = (ctx: Pick<RequestCtx, 'desc'>): string =>
  ctx.desc.group ? `${ctx.desc.group}/${ctx.desc.version}` : ctx.desc.version;

/**
 * An object labelled with the requested version and kind (a copy, type information first: objects
 * from the watch cache are shared). Converting its content between versions is `inRequestVersion`.
 */
export function present(ctx: RequestCtx, obj: KubeObject): KubeObject {
  const typeMeta = { apiVersion: requestApiVersion(ctx), kind: ctx.desc.names.kind };
  return Object.assign({}, typeMeta, obj, typeMeta);
}

/** Stored objects converted to the version the client asked for, then presented. */
export async function inRequestVersion(ctx: RequestCtx, objs: KubeObject[]): Promise<KubeObject[]> {
  return (await ctx.store.allInVersion(objs, requestApiVersion(ctx))).map((o) => present(ctx, o));
}

/** How encoded.ts keeps an object's body shown in this media type, version and kind. */
const bodyKey = (ctx: RequestCtx, mediaType: Body['contentType'], apiVersion: string): string =>
  `${mediaType} ${apiVersion} ${ctx.desc.names.kind}`;

/**
 * A created object's JSON body made of the text its create stored (`Store.storedText`), the
 * resourceVersion put last in its metadata, as encodeBody writes the object (the test holds them
 * equal), and kept as the object's body (encoded.ts): one encoding of the object for storage and
 * the reply. Only for an object answered as it is, whose first members are the apiVersion and kind
 * that present it.
 */
export function keepStoredBody(ctx: Ctx, obj: KubeObject): void {
  const stored = ctx.store.storedText(obj);
  if (!stored || stored.metadataEnd < 0 || !answersEncoded(ctx) || ctx.output.mediaType !== 'application/json') return;
  const apiVersion = requestApiVersion(ctx);
  const [first, second] = Object.keys(obj);
  const meta = Object.keys(obj.metadata);
  const asIs =
    first === 'apiVersion' &&
    second === 'kind' &&
    obj.apiVersion === apiVersion &&
    obj.kind === ctx.desc.names.kind &&
    meta[meta.length - 1] === 'resourceVersion' &&
    ctx.store.isInVersion(obj, apiVersion);
  if (!asIs) return;
  const { text, metadataEnd } = stored;
  const comma = text[metadataEnd - 1] === '{' ? '' : ',';
  const rv = `${comma}"resourceVersion":${JSON.stringify(obj.metadata.resourceVersion)}`;
  const bytes = jsonDocument(text.slice(0, metadataEnd) + rv + text.slice(metadataEnd));
  encodedOnce(obj, bodyKey(ctx, 'application/json', apiVersion), () => ({ bytes, contentType: 'application/json' }));
}

/**
 * Stored objects' bodies in the version and media type (JSON or protobuf) the client asked for:
 * those already in that version encoded once (encoded.ts), the others converted (in one batch) and
 * encoded for this request.
 */
export async function encodedInRequestVersion(
  ctx: RequestCtx,
  objs: KubeObject[],
  mediaType: Body['contentType'],
): Promise<Body[]> {
  const apiVersion = requestApiVersion(ctx);
  const key = bodyKey(ctx, mediaType, apiVersion);
  const asIs = objs.map((o) => ctx.store.isInVersion(o, apiVersion));
  const toConvert = objs.filter((_, i) => !asIs[i]);
  const converted = toConvert.length > 0 ? await inRequestVersion(ctx, toConvert) : [];
  let next = 0;
  return objs.map((o, i) =>
    asIs[i] ? encodedAsIs(ctx, o, key, mediaType) : encodeBody(converted[next++]!, mediaType),
  );
}

/** The body of a stored object already in the request's version (`key`: bodyKey's), encoded once. */
const encodedAsIs = (ctx: RequestCtx, obj: KubeObject, key: string, mediaType: Body['contentType']): Body =>
  encodedOnce(obj, key, () => encodeBody(present(ctx, obj), mediaType));

/** Whether the answer is the objects themselves in bytes encoded once: in JSON or protobuf, and no audit needs them whole. */
export function answersEncoded(ctx: Ctx): ctx is Ctx & { output: { mediaType: Body['contentType'] } } {
  return (
    ctx.output.format.kind === 'Object' && ctx.output.mediaType !== YAML_MEDIA_TYPE && !auditKeepsResponse(ctx.res)
  );
}

export async function respondObject(ctx: Ctx, code: number, obj: KubeObject): Promise<void> {
  if (answersEncoded(ctx)) {
    const { mediaType } = ctx.output;
    const apiVersion = requestApiVersion(ctx);
    // An object already in the request's version (nearly every read) is answered with no await.
    const body = ctx.store.isInVersion(obj, apiVersion)
      ? encodedAsIs(ctx, obj, bodyKey(ctx, mediaType, apiVersion), mediaType)
      : (await encodedInRequestVersion(ctx, [obj], mediaType))[0]!;
    return sendBody(ctx.res, code, body);
  }
  const { format, mediaType } = ctx.output;
  checkOutputTarget(format, { list: false, goType: goType(ctx, false) });
  const [shown] = await inRequestVersion(ctx, [obj]);
  if (!shown) return;
  if (format.kind === 'Table') {
    const table = buildTable(
      [shown],
      ctx.desc.printerColumns,
      { resourceVersion: shown.metadata.resourceVersion ?? '' },
      includeObject(ctx),
      ctx.store.clock.now(),
    );
    return sendJson(ctx.res, code, table, mediaType);
  }
  if (format.kind === 'PartialObjectMetadata') return sendJson(ctx.res, code, partialObjectMetadata(shown), mediaType);
  sendJson(ctx.res, code, shown, mediaType);
}

export function includeObject(ctx: RequestCtx): IncludeObject {
  const v = ctx.query.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  // handlers.optionsForTransform over ValidateTableOptions (apimachinery meta/v1/validation).
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${goQuote(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}
