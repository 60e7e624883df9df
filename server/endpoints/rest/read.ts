// The verbs that read: get, list and watch, with kube's list options (selectors, paging,
// resourceVersion and its match) checked and decoded as its handlers check and decode them.
import { ApiError, badRequest, invalid } from '../../../apimachinery/errors.js';
import {
  type FieldError,
  forbidden as forbiddenField,
  formatFieldError,
  goQuote,
  invalid as invalidField,
  notSupported,
} from '../../../apimachinery/field-errors.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { ListOptions } from '../../registry/store.js';
import { type ListQuery, decodeListOptions } from '../../request/request-info.js';
import { matchesLabels, parseGoInt64 } from '../../../apimachinery/selectors/labels.js';
import { convertFieldSelector, matchesFields } from '../../../apimachinery/selectors/fields.js';
import { decodeContinue, encodeContinue } from '../../registry/continue-token.js';
import { buildTable, partialObjectMetadata } from '../table.js';
import { checkOutputTarget, watchMediaType } from '../output.js';
import { listBody, sendBody, sendJson } from '../respond.js';
import { type WatchOptions, validateWatchOptions } from '../watch/options.js';
import { httpWatchSink } from '../watch/sink.js';
import { serveWatch } from '../watch/serve-watch.js';
import {
  type Ctx,
  type RequestCtx,
  answersEncoded,
  encodedInRequestVersion,
  goType,
  requestApiVersion,
  namespaceOf,
  present,
  inRequestVersion,
  respondObject,
  includeObject,
} from './context.js';

export async function get(ctx: Ctx): Promise<void> {
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

export function listOptions(ctx: RequestCtx): ListOptions {
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
function parseResourceVersion(rv: string): number {
  const parsed = /^[0-9]+$/.test(rv) ? parseGoInt64(rv) : { error: `parsing ${goQuote(rv)}: invalid syntax` };
  if ('error' in parsed)
    throw badRequest(formatFieldError(invalidField('resourceVersion', rv, `strconv.ParseUint: ${parsed.error}`)));
  return Number(parsed.value);
}

export async function list(ctx: Ctx): Promise<void> {
  const ns = namespaceOf(ctx);
  const result = await ctx.store.list(ns, listOptions(ctx));
  const listMeta: Record<string, unknown> = { resourceVersion: String(result.revision) };
  if (result.next)
    listMeta['continue'] = encodeContinue(result.next.revision, result.next.startKey, ctx.store.prefix(ns));
  if (answersEncoded(ctx)) {
    const head = { apiVersion: requestApiVersion(ctx), kind: ctx.desc.names.listKind, metadata: listMeta };
    const { mediaType } = ctx.output;
    const items = await encodedInRequestVersion(ctx, result.items, mediaType);
    const json = () => encodedInRequestVersion(ctx, result.items, 'application/json');
    return sendBody(ctx.res, 200, await listBody(head, items, mediaType, json));
  }
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
  sendJson(
    ctx.res,
    200,
    { apiVersion: requestApiVersion(ctx), kind: ctx.desc.names.listKind, metadata: listMeta, items },
    mediaType,
  );
}

export async function watch(ctx: Ctx): Promise<void> {
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
