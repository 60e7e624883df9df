// The REST verbs over the generic store, for every resource in the catalog: get, list, create,
// update, patch, delete, deletecollection, and the status subresource. Each handler parses what
// kube parses (query options, bodies, patches) and answers in kube's shapes and codes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ApiError,
  successStatus,
  badRequest,
  conflict,
  invalid,
  methodNotSupported,
  methodNotSupportedOn,
  unsupportedMediaType,
  type Qualified,
} from '../../apimachinery/errors.js';
import {
  type FieldError,
  forbidden as forbiddenField,
  formatFieldError,
  goQuote,
  invalid as invalidField,
  notSupported,
} from '../../apimachinery/field-errors.js';
import { PROPAGATION_POLICIES, type PropagationPolicy } from '../registry/delete-propagation.js';
import { type ResourceDescriptor, type ScaleMapping, TYPED_PROFILE } from '../registry/catalog.js';
import { auditOf } from '../audit/context.js';
import { strategicMergePatch } from '../../apimachinery/strategic-merge/merge.js';
import type { PatchMeta } from '../../apimachinery/strategic-merge/patch-meta.js';
import {
  type JsonObject,
  type JsonValue,
  type KubeObject,
  cloneJson,
  isJsonObject,
  nowTimestamp,
} from '../../apimachinery/object.js';
import { dropUnknownFields } from '../../apimachinery/apis/unknown-fields.js';
import { type WriteContext, qualifiedKind, qualifiedResource, updateStrategyFor } from '../registry/strategy.js';
import { LARGE_WRITE_BYTES, giveWayFor, runSliced } from '../registry/give-way.js';
import type { DeleteOptions, ListOptions, Store } from '../registry/store.js';
import type { UserInfo } from '../../apimachinery/user.js';
import { type ListQuery, type RequestInfo, decodeListOptions, queryOptionalBool } from '../pipeline/request-info.js';
import { matchesLabels, parseGoInt64 } from '../../apimachinery/selectors/labels.js';
import { convertFieldSelector, matchesFields } from '../../apimachinery/selectors/fields.js';
import { decodeContinue, encodeContinue } from '../registry/continue-token.js';
import { ensureNamespaceMatchesRequest } from '../registry/object-meta-ops.js';
import { applyMergePatch } from './patch/merge-patch.js';
import { applyJsonPatch } from './patch/json-patch.js';
import { addWarning, strictDecoding } from './field-validation.js';
import { APPLY_PATCH_TYPE, type WriteOptions, dryRunErrors, parseWriteOptions } from './write-options.js';
import { FieldManager } from '../../apimachinery/managed-fields/field-manager.js';
import { gvkString, unstructuredGVK } from '../../apimachinery/versions.js';
import { type DecodedBody, decodeObjectBody, parseJson, parseYaml, readBody } from './body.js';
import { DecoderError, transformDecodeError } from './decode-error.js';
import { hasProtobufKind } from '../../apimachinery/apis/kube-messages.js';
import { type IncludeObject, buildTable, partialObjectMetadata } from './table.js';
import { type Negotiated, checkOutputTarget, negotiateResourceOutput, watchMediaType } from './output.js';
import { protobufKindKnown } from './protobuf-encode.js';
import { sendJson } from './respond.js';
import { patchMediaType } from './negotiate.js';
import { type Scale, applyScale, scaleOf } from './scale.js';
import { type WatchOptions, type WatchRegistry, httpWatchSink, serveWatch, validateWatchOptions } from './watch.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { goFormat } from '../../apimachinery/strategic-merge/go-format.js';

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
 * The request's output negotiation, once, at the start of every handler as kube's handlers have it:
 * a 406 leaves everything as it was. The endpoint's own objects are a Scale for /scale.
 */
export function negotiateOutput(ctx: Omit<RequestCtx, 'output'>): Negotiated {
  const protobuf =
    ctx.info.subresource === 'scale' ||
    (ctx.desc.serving.typed && protobufKindKnown({ apiVersion: requestApiVersion(ctx), kind: ctx.desc.names.kind }));
  return negotiateResourceOutput(ctx.req.headers.accept, protobuf);
}

export async function serveResource(request: Omit<Ctx, 'output'>): Promise<void> {
  // The request's scope and subresource were matched by endpoints/routes.ts.
  const { info, desc } = request;
  if (desc.deprecationWarning) addWarning(request.res, desc.deprecationWarning);
  // PUT or PATCH on a collection: go-restful has no such route for built-in kinds; the custom
  // resource handler runs and its namer fails (handlers/namer.go errEmptyName).
  if ((info.verb === 'update' || info.verb === 'patch') && !info.name)
    throw desc.serving.unsupported === 'route' ? methodNotSupported() : badRequest('name must be provided');
  const ctx: Ctx = { ...request, output: negotiateOutput(request) };
  if (info.subresource === 'scale' && ctx.desc.scale) return serveScale(ctx, ctx.desc.scale);
  // The /watch/ path names the verb; it is served to GET only (DELETE .../watch/... deletes nothing).
  if (info.verb === 'watch' && ctx.req.method !== 'GET') throw verbNotSupported(ctx);
  switch (info.verb) {
    case 'get':
      return get(ctx);
    case 'list':
      return list(ctx);
    case 'watch':
      return watch(ctx);
    case 'create':
      return create(ctx);
    case 'update':
      return update(ctx);
    case 'patch':
      return patch(ctx);
    case 'delete':
      return del(ctx);
    case 'deletecollection':
      return deleteCollection(ctx);
    default:
      throw verbNotSupported(ctx);
  }
}

/**
 * A verb the resource (or subresource) does not serve: go-restful's generic 405 for built-in
 * kinds, apierrors.NewMethodNotSupported from the custom resource handler for the others.
 */
function verbNotSupported(ctx: RequestCtx, message?: string): ApiError {
  return ctx.desc.serving.unsupported === 'route'
    ? methodNotSupported()
    : methodNotSupportedOn(qualifiedResource(ctx.store.kind), ctx.info.verb, message);
}

/** What Go's %T prints for the object a handler holds: the internal type, or Unstructured for custom resources. */
function goType(ctx: RequestCtx, list: boolean): string {
  const suffix = list ? 'List' : '';
  if (!ctx.desc.serving.typed) return `*unstructured.Unstructured${suffix}`;
  return `*${internalType(ctx.desc)}${suffix}`;
}

/** The internal Go type a built-in kind's handler decodes into, as %T names it: `core.Namespace`. */
function internalType(desc: ResourceDescriptor): string {
  const pkg = desc.group === '' ? 'core' : desc.group.split('.')[0]!;
  return `${pkg}.${desc.names.kind}`;
}

const namespaceOf = (ctx: RequestCtx): string | undefined =>
  ctx.desc.namespaced ? ctx.info.namespace || undefined : undefined;

const requestApiVersion = (ctx: Pick<RequestCtx, 'desc'>): string =>
  ctx.desc.group ? `${ctx.desc.group}/${ctx.desc.version}` : ctx.desc.version;

/**
 * An object labelled with the requested version and kind (a copy, type information first: objects
 * from the watch cache are shared). Converting its content between versions is `inRequestVersion`.
 */
function present(ctx: RequestCtx, obj: KubeObject): KubeObject {
  const typeMeta = { apiVersion: requestApiVersion(ctx), kind: ctx.desc.names.kind };
  return Object.assign({}, typeMeta, obj, typeMeta);
}

/** Stored objects converted to the version the client asked for, then presented. */
async function inRequestVersion(ctx: RequestCtx, objs: KubeObject[]): Promise<KubeObject[]> {
  return (await ctx.store.allInVersion(objs, requestApiVersion(ctx))).map((o) => present(ctx, o));
}

async function respondObject(ctx: Ctx, code: number, obj: KubeObject): Promise<void> {
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

function includeObject(ctx: RequestCtx): IncludeObject {
  const v = ctx.query.get('includeObject');
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  // handlers.optionsForTransform over ValidateTableOptions (apimachinery meta/v1/validation).
  throw badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${goQuote(v)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** The options of a create, update or patch, validated together as Validate<Verb>Options. */
const writeOptions = (
  ctx: Ctx,
  kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
  patchType?: string,
): WriteOptions => parseWriteOptions(ctx.query, kind, ctx.req.headers['user-agent'], patchType);

async function get(ctx: Ctx): Promise<void> {
  // resourceVersion "0": any recent state, from the watch cache; N: not older than N (kube's 504
  // "Too large resource version" for one not reached in time); none: the newest, from storage.
  const rv = ctx.query.get('resourceVersion');
  const opts = rv === '0' ? { anyRevision: true } : rv ? { minRevision: parseResourceVersion(rv) } : {};
  const obj = await ctx.store.get(namespaceOf(ctx), ctx.info.name, opts);
  await respondObject(ctx, 200, obj);
}

/**
 * Largest page asked of storage: a limit beyond any collection this server can hold lists it
 * whole, and stays a number both backends take.
 */
const MAX_PAGE = 2 ** 31 - 1;

/** The request's list options, decoded once with its request info (or here, for a /watch/ path). */
function decodedListOptions(ctx: RequestCtx): ListQuery {
  const decoded = ctx.info.listOptions ?? decodeListOptions(ctx.query);
  if (decoded instanceof ApiError) throw decoded;
  return decoded;
}

/** ValidateListOptions for a list (a watch has its own): one 422 on ListOptions lists every error. */
function validateListOptions(q: URLSearchParams): void {
  const errs: FieldError[] = [];
  const match = q.get('resourceVersionMatch') ?? '';
  const rv = q.get('resourceVersion') ?? '';
  if (match) {
    if (!rv)
      errs.push(
        forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
      );
    if (q.get('continue'))
      errs.push(forbiddenField('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0')
      errs.push(
        forbiddenField('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
      );
  }
  if (q.has('sendInitialEvents'))
    errs.push(forbiddenField('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', name: 'ListOptions' }, '', errs);
}

function listOptions(ctx: RequestCtx): ListOptions {
  const q = ctx.query;
  if (ctx.info.verb !== 'watch') validateListOptions(q);
  const decoded = decodedListOptions(ctx);
  const opts: ListOptions = {};
  const labels = q.get('labelSelector') ? decoded.labelSelector : undefined;
  const fields = q.get('fieldSelector')
    ? convertFieldSelector(decoded.fieldSelector, ctx.desc.fieldLabels ?? ctx.store.strategy.fieldLabels)
    : undefined;
  if (labels || fields) {
    opts.predicate = (obj) =>
      (!labels || matchesLabels(labels, obj.metadata.labels ?? {})) &&
      (!fields || matchesFields(fields, ctx.store.strategy.selectableFields(obj)));
  }
  // kube pages only for a positive limit; a negative one lists everything.
  if (decoded.limit > 0) opts.limit = Math.min(decoded.limit, MAX_PAGE);
  const cont = q.get('continue');
  if (cont) {
    const rv = q.get('resourceVersion');
    if (rv && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    opts.continueFrom = decodeContinue(cont, ctx.store.prefix(namespaceOf(ctx)));
  } else {
    const rv = q.get('resourceVersion');
    const match = q.get('resourceVersionMatch');
    if (match === 'Exact' && rv) {
      opts.revision = parseResourceVersion(rv);
    } else if (rv === '0') {
      opts.anyRevision = true;
    } else if (rv) {
      // NotOlderThan, also what a bare resourceVersion means for a list.
      opts.minRevision = parseResourceVersion(rv);
    }
  }
  return opts;
}

/**
 * A resourceVersion as kube's APIObjectVersioner reads it (strconv.ParseUint), with its 400 for
 * one that is not a number. One beyond 2^53 is no revision storage has reached: it stays a
 * (rounded) number, which reads then treat as too large.
 */
export function parseResourceVersion(rv: string): number {
  const parsed = /^[0-9]+$/.test(rv) ? parseGoInt64(rv) : { error: `parsing ${goQuote(rv)}: invalid syntax` };
  if ('error' in parsed)
    throw badRequest(formatFieldError(invalidField('resourceVersion', rv, `strconv.ParseUint: ${parsed.error}`)));
  return Number(parsed.value);
}

async function list(ctx: Ctx): Promise<void> {
  const ns = namespaceOf(ctx);
  const result = await ctx.store.list(ns, listOptions(ctx));
  const listMeta: Record<string, unknown> = { resourceVersion: String(result.revision) };
  if (result.next)
    listMeta['continue'] = encodeContinue(result.next.revision, result.next.startKey, ctx.store.prefix(ns));
  const items = await inRequestVersion(ctx, result.items);
  const { format, mediaType } = ctx.output;
  checkOutputTarget(format, { list: true, goType: goType(ctx, true) });
  if (format.kind === 'Table')
    return sendJson(
      ctx.res,
      200,
      buildTable(items, ctx.desc.printerColumns, listMeta, includeObject(ctx), ctx.store.clock.now()),
      mediaType,
    );
  if (format.kind === 'PartialObjectMetadata') {
    const metadataList = {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: listMeta,
      items: items.map(partialObjectMetadata),
    };
    return sendJson(ctx.res, 200, metadataList, mediaType);
  }
  const gv = ctx.desc.group ? `${ctx.desc.group}/${ctx.desc.version}` : ctx.desc.version;
  sendJson(ctx.res, 200, { apiVersion: gv, kind: ctx.desc.names.listKind, metadata: listMeta, items }, mediaType);
}

async function watch(ctx: Ctx): Promise<void> {
  const options = watchOptions(ctx);
  await serveWatch(httpWatchSink(ctx.res, ctx.output.mediaType), options, ctx.watches);
}

/** A watch request's options, checked as kube checks them (also for a watch over WebSocket). */
export function watchOptions(ctx: RequestCtx): WatchOptions {
  const o = decodedListOptions(ctx);
  const { sendInitialEvents, resourceVersionMatch, resourceVersion } = o;
  const errs = validateWatchOptions({ resourceVersionMatch, sendInitialEvents, continue: o.continue });
  if (errs.length) throw invalid({ group: 'meta.k8s.io', name: 'ListOptions' }, '', errs);
  const { predicate } = listOptions(ctx);
  if (resourceVersion) parseResourceVersion(resourceVersion);
  // serveWatch's stream negotiation, once the options are good: YAML has no stream serializer.
  watchMediaType(ctx.output);
  const format = ctx.output.format;
  const gv = ctx.desc.group ? `${ctx.desc.group}/${ctx.desc.version}` : ctx.desc.version;
  const include = includeObject(ctx);
  return {
    store: ctx.store,
    namespace: namespaceOf(ctx),
    predicate,
    resourceVersion,
    resourceVersionMatch,
    allowWatchBookmarks: o.allowWatchBookmarks,
    sendInitialEvents,
    timeoutSeconds: o.timeoutSeconds,
    render(obj) {
      const shown = present(ctx, obj);
      if (format.kind === 'Table')
        return buildTable(
          [shown],
          ctx.desc.printerColumns,
          { resourceVersion: shown.metadata.resourceVersion ?? '' },
          include,
          ctx.store.clock.now(),
        );
      if (format.kind === 'PartialObjectMetadata') return partialObjectMetadata(shown);
      return shown;
    },
    typeMeta: { apiVersion: gv, kind: ctx.desc.names.kind },
    renderKey: `${gv}|${format.kind}|${include}`,
    ...(ctx.store.strategy.versions ? { convert: (objects: KubeObject[]) => ctx.store.allInVersion(objects, gv) } : {}),
  };
}

/** Decodes an object body and checks it is an object of this resource's kind and version. */
async function readObject(ctx: Ctx): Promise<{ obj: KubeObject; decoded: DecodedBody; large: boolean }> {
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
const decodeError =
  (ctx: Ctx) =>
  (message: string): ApiError =>
    badRequest(
      `${ctx.desc.names.kind} in version ${goQuote(ctx.desc.version)} cannot be handled as a ${ctx.desc.names.kind}: ${message}`,
    );

function checkObject(ctx: Ctx, value: unknown): KubeObject {
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
function checkName(given: unknown, name: string): void {
  if (given === undefined || given === '')
    throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  if (given !== name)
    throw badRequest(`the name of the object (${String(given)}) does not match the name on the URL (${name})`);
}

/** The handlers' EnsureObjectNamespaceMatchesRequestNamespace, on the object the client sent or patched. */
const checkNamespace = (ctx: RequestCtx, obj: KubeObject): void =>
  ensureNamespaceMatchesRequest(namespaceOf(ctx) ?? '', obj.metadata);

async function create(ctx: Ctx): Promise<void> {
  if (ctx.info.subresource) throw verbNotSupported(ctx);
  if (ctx.desc.terminating)
    throw verbNotSupported(ctx, 'create not allowed while custom resource definition is terminating');
  const options = writeOptions(ctx, 'CreateOptions');
  const { obj, decoded, large } = await readObject(ctx);
  checkNamespace(ctx, obj);
  const onUnknownFields = strictDecoding(
    (t) => addWarning(ctx.res, t),
    options.fieldValidation,
    decoded.duplicateFields,
    decodeError(ctx),
  );
  // kube decodes a built-in kind's body into its Go type here, before anything else is looked at.
  if (ctx.desc.serving.typed) onUnknownFields(dropUnknownFields(obj as unknown as JsonObject));
  const created = await ctx.store.create(
    namespaceOf(ctx),
    obj,
    writeContext(ctx, options, { floatLiterals: decoded.floatLiterals, onUnknownFields, large }),
  );
  await respondObject(ctx, 201, created);
}

async function update(ctx: Ctx): Promise<void> {
  const options = writeOptions(ctx, 'UpdateOptions');
  const { obj, decoded, large } = await readObject(ctx);
  checkNamespace(ctx, obj);
  const onUnknownFields = strictDecoding(
    (t) => addWarning(ctx.res, t),
    options.fieldValidation,
    decoded.duplicateFields,
    decodeError(ctx),
  );
  // kube decodes a built-in kind's body into its Go type here, before anything else is looked at.
  if (ctx.desc.serving.typed) onUnknownFields(dropUnknownFields(obj as unknown as JsonObject));
  const name = ctx.info.name;
  checkName(obj.metadata.name, name);
  const updated = await ctx.store.update(namespaceOf(ctx), name, () => obj, {
    ...writeContext(ctx, options, { floatLiterals: decoded.floatLiterals, onUnknownFields, large }),
    replace: true,
  });
  await respondObject(ctx, 200, updated);
}

async function patch(ctx: Ctx): Promise<void> {
  const type = patchMediaType(ctx.req.headers['content-type']);
  const allowed = ctx.desc.serving.patchTypes;
  if (!allowed.includes(type)) throw unsupportedMediaType(allowed);
  const options = writeOptions(ctx, 'PatchOptions', type);
  if (type === APPLY_PATCH_TYPE) return applyPatch(ctx, options);
  const bytes = await readBody(ctx.req, ctx.maxRequestBodyBytes);
  const large = bytes.length >= LARGE_WRITE_BYTES;
  const body = bytes.toString('utf8');
  // Large bodies that arrive together are decoded one per turn of the loop, not all in one.
  await giveWayFor(large);
  const decoded = parseJson(body, ctx.store.strategy.exactIntegers);
  await giveWayFor(large);
  const patchDoc = decoded.value;
  auditOf(ctx.res)?.requestPatch(patchDoc);
  const name = ctx.info.name;
  // A patch that leaves unknown fields is a 422 on the patch (handlers/patch.go): a strategic merge
  // patch shown as Go prints its map (%+v), which the converter decodes; the others as the patched JSON.
  const strategic = type === 'application/strategic-merge-patch+json';
  // The patched object, shown only in a 422: written out then, not for every patch (megabytes, for some).
  let patched: unknown;
  const patchError = (message: string): ApiError =>
    invalid({ group: '', name: '' }, '', [
      invalidField('patch', strategic ? goFormat(patchDoc as JsonValue) : stringifyJSON(patched), message),
    ]);
  const onUnknownFields = strictDecoding(
    (t) => addWarning(ctx.res, t),
    options.fieldValidation,
    decoded.duplicateFields,
    patchError,
  );
  if (ctx.desc.serving.typed) onUnknownFields([]);
  const updated = await ctx.store.update(
    namespaceOf(ctx),
    name,
    async (current) => {
      const [original] = await inRequestVersion(ctx, [current]);
      let result: unknown;
      if (type === 'application/json-patch+json') result = applyJsonPatch(original as unknown as JsonValue, patchDoc);
      else result = mergePatched(original as unknown as JsonValue, patchDoc, type, ctx.store.strategy.patchMeta);
      patched = result;
      const obj = checkObject(ctx, result);
      // patcher.applyPatch: the namespace first, then the name (checkName).
      checkNamespace(ctx, obj);
      checkName(obj.metadata.name, name);
      // A resourceVersion the patch did not set is the one just read, not a precondition; one it
      // set is the store's to judge. Dropped from a copy: a 422 shows the patched object with it.
      if (obj.metadata.resourceVersion === current.metadata.resourceVersion) {
        const { resourceVersion: _read, ...metadata } = obj.metadata;
        return { ...obj, metadata };
      }
      return obj;
    },
    writeContext(ctx, options, {
      // A merge patch puts its values at the same paths in the object; a JSON patch's are its own.
      ...(type === 'application/json-patch+json' ? {} : { floatLiterals: decoded.floatLiterals }),
      onUnknownFields,
      // A patched object that no longer decodes is a 422 on the patch (handlers/patch.go), not a 400.
      decodeError: patchError,
      fromUnstructured: strategic,
      large,
    }),
  );
  await respondObject(ctx, 200, updated);
}

/** An apply body: YAML, or the JSON kubectl sends (which is YAML too), as an object. */
async function readApplyConfiguration(ctx: Ctx): Promise<{ config: KubeObject; decoded: DecodedBody; large: boolean }> {
  const bytes = await readBody(ctx.req, ctx.maxRequestBodyBytes);
  const text = bytes.toString('utf8');
  const exact = ctx.store.strategy.exactIntegers;
  // JSON decodes faster and reports repeated keys.
  const decoded = /^\s*\{/.test(text)
    ? parseJson(text, exact)
    : { value: await parseYaml(text, exact), duplicateFields: [], floatLiterals: new Set<string>() };
  if (!isJsonObject(decoded.value)) throw badRequest('error decoding YAML: the apply configuration must be an object');
  const config = decoded.value as unknown as KubeObject;
  if (config.metadata === undefined || config.metadata === null) config.metadata = {};
  else if (!isJsonObject(config.metadata)) throw badRequest('error decoding YAML: metadata must be an object');
  return { config, decoded, large: bytes.length >= LARGE_WRITE_BYTES };
}

/** The field manager of this request's version and subresource. */
function fieldManager(ctx: RequestCtx): FieldManager {
  const apiVersion = requestApiVersion(ctx);
  const strategy = ctx.store.strategy;
  return new FieldManager({
    type: strategy.fieldTypes(apiVersion),
    apiVersion,
    kind: ctx.desc.names.kind,
    subresource: ctx.info.subresource,
    resetFields: updateStrategyFor(strategy, ctx.info.subresource).resetFields,
    now: () => nowTimestamp(ctx.store.clock),
  });
}

/** What a write's body decoded to, for the store's own decoding steps. */
type Decoding = Pick<WriteContext, 'floatLiterals' | 'onUnknownFields' | 'decodeError' | 'fromUnstructured' | 'large'>;

/**
 * The one context of a write, whatever its verb (create, update, patch, apply, and their scale
 * forms), handed to the store that runs kube's order: field manager, mutating admission, strategy,
 * validating admission, storage. It carries who asks, dry run, the client's warnings, admission's
 * audit annotations, and the field manager's record of a non-apply write (an apply's field
 * manager runs in its patcher, on the live object).
 */
function writeContext(ctx: Ctx, options: WriteOptions, decoding: Decoding = {}, apply = false): WriteContext {
  const fields = apply ? undefined : fieldManager(ctx);
  return {
    subresource: ctx.info.subresource || undefined,
    dryRun: options.dryRun,
    user: ctx.user,
    warn: (t) => addWarning(ctx.res, t),
    auditAnnotate: (k, v) => auditOf(ctx.res)?.annotate(k, v),
    ...(fields
      ? {
          trackFields: (obj: KubeObject, old: KubeObject | undefined) =>
            runSliced(fields.updateTask(obj, old, options.fieldManager)),
        }
      : {}),
    ...decoding,
  };
}

/**
 * Server-side apply (handlers/patch.go applyPatcher): the configuration merged into the object by
 * the field manager, inside the store's compare-and-swap; to a missing object (not through a
 * subresource), a create.
 */
async function applyPatch(ctx: Ctx, options: WriteOptions): Promise<void> {
  const { config, decoded, large } = await readApplyConfiguration(ctx);
  auditOf(ctx.res)?.requestPatch(config);
  const name = ctx.info.name;
  const ns = namespaceOf(ctx);
  const fields = fieldManager(ctx);
  const onUnknownFields = strictDecoding(
    (t) => addWarning(ctx.res, t),
    options.fieldValidation,
    decoded.duplicateFields,
    (message) => badRequest(`error strict decoding YAML: ${message}`),
  );
  const applyTo = (live: KubeObject): KubeObject => {
    const obj = fields.apply(live, cloneJson(config), options.fieldManager, options.force);
    checkNamespace(ctx, obj);
    checkName(obj.metadata.name, name);
    return obj;
  };
  const writeCtx = writeContext(ctx, options, { floatLiterals: decoded.floatLiterals, onUnknownFields, large }, true);
  for (let attempt = 0; ; attempt++) {
    try {
      const updated = await ctx.store.update(
        ns,
        name,
        async (current) => {
          const [live] = await inRequestVersion(ctx, [current]);
          const obj = applyTo(live!);
          // The object's own resourceVersion is no precondition; one the configuration sets is.
          if (config.metadata.resourceVersion === undefined) delete obj.metadata.resourceVersion;
          return obj;
        },
        writeCtx,
      );
      return await respondObject(ctx, 200, updated);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404) || ctx.info.subresource || attempt > 0) throw err;
    }
    // Nothing to apply to: the configuration is the new object.
    const obj = applyTo({ metadata: {} });
    if (obj.metadata.uid)
      throw conflict(
        qualifiedResource(ctx.store.kind),
        name,
        `uid mismatch: the provided object specified uid ${obj.metadata.uid}, and no existing object was found`,
      );
    try {
      return await respondObject(ctx, 201, await ctx.store.create(ns, obj, writeCtx));
    } catch (err) {
      // Created meanwhile by someone else: apply to theirs.
      if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
    }
  }
}

/** GET, PUT and PATCH of `<name>/scale`: the object seen and changed as an autoscaling/v1 Scale. */
async function serveScale(ctx: Ctx, mapping: ScaleMapping): Promise<void> {
  const ns = namespaceOf(ctx);
  const name = ctx.info.name;
  if (ctx.info.verb === 'get')
    return sendJson(ctx.res, 200, scaleOf(await ctx.store.get(ns, name), mapping), ctx.output.mediaType);
  let change: (current: Scale) => unknown;
  let options: WriteOptions;
  if (ctx.info.verb === 'update') {
    options = writeOptions(ctx, 'UpdateOptions');
    const { value } = await decodeObjectBody(
      await readBody(ctx.req, ctx.maxRequestBodyBytes),
      ctx.req.headers['content-type'],
      true,
    );
    checkName(isJsonObject(value) && isJsonObject(value['metadata']) ? value['metadata']['name'] : undefined, name);
    change = () => value;
  } else if (ctx.info.verb === 'patch') {
    const type = patchMediaType(ctx.req.headers['content-type']);
    options = writeOptions(ctx, 'PatchOptions', type);
    // A Scale is a typed object (autoscaling/v1), whatever the resource it scales.
    const allowed = TYPED_PROFILE.patchTypes;
    if (!allowed.includes(type)) throw unsupportedMediaType(allowed);
    if (type === APPLY_PATCH_TYPE) return applyScalePatch(ctx, mapping, options);
    const patchDoc = parseJson((await readBody(ctx.req, ctx.maxRequestBodyBytes)).toString('utf8')).value;
    change = (current) =>
      type === 'application/json-patch+json'
        ? applyJsonPatch(current as unknown as JsonValue, patchDoc)
        : // autoscaling/v1 Scale has no patch tags.
          mergePatched(current as unknown as JsonValue, patchDoc, type, undefined);
  } else {
    throw verbNotSupported(ctx);
  }
  // The replicas a scale write sets are its manager's, recorded on the scaled object.
  const updated = await ctx.store.update(
    ns,
    name,
    (current) => applyScale(current, change(scaleOf(current, mapping)), mapping),
    writeContext(ctx, options),
  );
  sendJson(ctx.res, 200, scaleOf(updated, mapping), ctx.output.mediaType);
}

/**
 * Apply to /scale: the Scale's replicas applied to the scaled object at specReplicasPath, owned by
 * the applier through the scale subresource (where kube's ScaleHandler records them).
 */
async function applyScalePatch(ctx: Ctx, mapping: ScaleMapping, options: WriteOptions): Promise<void> {
  const { config } = await readApplyConfiguration(ctx);
  if (config.apiVersion !== 'autoscaling/v1' || config.kind !== 'Scale')
    throw badRequest(`invalid object type: ${gvkString(unstructuredGVK(config))}`);
  const name = ctx.info.name;
  const replicas = isJsonObject(config['spec']) ? config['spec']['replicas'] : undefined;
  // Only the name and replicas carry over (managedFields too, for the field manager's 400).
  const metadata = {
    name,
    ...(config.metadata.managedFields !== undefined ? { managedFields: config.metadata.managedFields } : {}),
  };
  const target: KubeObject = { apiVersion: requestApiVersion(ctx), kind: ctx.desc.names.kind, metadata };
  const parentConfig = replicas === undefined ? target : applyScale(target, config, mapping);
  const fields = fieldManager(ctx);
  const updated = await ctx.store.update(
    namespaceOf(ctx),
    name,
    async (current) => {
      const [live] = await inRequestVersion(ctx, [current]);
      const obj = fields.apply(live!, cloneJson(parentConfig), options.fieldManager, options.force);
      if (config.metadata.resourceVersion === undefined) delete obj.metadata.resourceVersion;
      else obj.metadata.resourceVersion = config.metadata.resourceVersion;
      return obj;
    },
    writeContext(ctx, options, {}, true),
  );
  sendJson(ctx.res, 200, scaleOf(updated, mapping), ctx.output.mediaType);
}

/** A JSON merge patch or, for built-in kinds, kube's strategic merge patch by the kind's struct tags. */
function mergePatched(original: JsonValue, patchDoc: unknown, type: string, meta: PatchMeta | undefined): JsonValue {
  if (type !== 'application/strategic-merge-patch+json') return applyMergePatch(original, patchDoc);
  return strategicMergePatch(original as JsonObject, patchDoc, meta ?? {});
}

interface DeleteOptionsBody {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  dryRun?: string[];
}

async function deleteOptions(ctx: Ctx): Promise<DeleteOptions> {
  const raw = await readBody(ctx.req, ctx.maxRequestBodyBytes);
  let body: DeleteOptionsBody = {};
  if (raw.length > 0) {
    const { value } = await decodeObjectBody(raw, ctx.req.headers['content-type'], true);
    if (!isJsonObject(value)) throw badRequest('the request body must be a DeleteOptions object');
    body = value as DeleteOptionsBody;
    auditOf(ctx.res)?.requestObject({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', ...value });
  }
  // The delete handler decodes the body, or, only when there is none, the query (handlers/delete.go).
  const fromBody = raw.length > 0;
  const policy = fromBody ? body.propagationPolicy : (ctx.query.get('propagationPolicy') ?? undefined);
  const orphanDependents = fromBody
    ? typeof body.orphanDependents === 'boolean'
      ? body.orphanDependents
      : undefined
    : queryOptionalBool(ctx.query.get('orphanDependents'));
  // ValidateDeleteOptions, with its list of supported values ("nil" included) and its kind.
  const optionErrs: FieldError[] = [];
  if (orphanDependents !== undefined && policy !== undefined) {
    optionErrs.push(
      invalidField('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'),
    );
  }
  if (policy !== undefined && !isPropagationPolicy(policy)) {
    optionErrs.push(notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  if (optionErrs.length > 0) throw invalid({ group: 'meta.k8s.io', name: 'DeleteOptions' }, '', optionErrs);
  const dryRunValues = fromBody
    ? Array.isArray(body.dryRun)
      ? body.dryRun.map(String)
      : []
    : ctx.query.getAll('dryRun');
  const dryRunErrs = dryRunErrors(dryRunValues);
  if (dryRunErrs.length > 0) throw invalid({ group: 'meta.k8s.io', name: 'DeleteOptions' }, '', dryRunErrs);
  return {
    ...(body.preconditions ? { preconditions: body.preconditions } : {}),
    ...(policy !== undefined && isPropagationPolicy(policy) ? { propagationPolicy: policy } : {}),
    ...(orphanDependents !== undefined ? { orphanDependents } : {}),
    dryRun: dryRunValues.length > 0,
    user: ctx.user,
  };
}

async function del(ctx: Ctx): Promise<void> {
  if (ctx.info.subresource) throw verbNotSupported(ctx);
  const opts = await deleteOptions(ctx);
  const result = await ctx.store.delete(namespaceOf(ctx), ctx.info.name, opts);
  // kube's delete handler: 202 for an object left in place when the client asked for cascading
  // deletion with orphanDependents=false; 200 otherwise, to keep older clients working.
  if (!result.deleted) return respondObject(ctx, opts.orphanDependents === false ? 202 : 200, result.obj);
  if (ctx.desc.serving.deleted === 'object') return respondObject(ctx, 200, result.obj);
  const resource = qualifiedResource(ctx.store.kind);
  const status = successStatus({
    name: result.obj.metadata.name,
    ...(resource.group ? { group: resource.group } : {}),
    kind: resource.name,
    uid: result.obj.metadata.uid,
  });
  sendJson(ctx.res, 200, status, ctx.output.mediaType);
}

async function deleteCollection(ctx: Ctx): Promise<void> {
  const opts = await deleteOptions(ctx);
  const ns = namespaceOf(ctx);
  const { items, revision } = await ctx.store.list(ns, {
    ...listOptions(ctx),
    limit: undefined,
    continueFrom: undefined,
  });
  for (const obj of items) {
    try {
      await ctx.store.delete(obj.metadata.namespace, obj.metadata.name ?? '', opts);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }
  // registry.Store.DeleteCollection answers with the list it deleted from, as it was listed.
  const gv = ctx.desc.group ? `${ctx.desc.group}/${ctx.desc.version}` : ctx.desc.version;
  const listed = await inRequestVersion(ctx, items);
  sendJson(
    ctx.res,
    200,
    { apiVersion: gv, kind: ctx.desc.names.listKind, metadata: { resourceVersion: String(revision) }, items: listed },
    ctx.output.mediaType,
  );
}

const isPropagationPolicy = (p: string): p is PropagationPolicy =>
  (PROPAGATION_POLICIES as readonly string[]).includes(p);
