// The REST verbs over the generic store, for every resource in the catalog: get, list, create,
// update, patch, delete, deletecollection, and the status and scale subresources. Here the answer's
// media type is negotiated once and the request handed to its verb (read.ts, create.ts, update.ts,
// delete.ts, scale-subresource.ts). Each handler parses what kube parses (query options, bodies,
// patches) and answers in kube's shapes and codes.
import { badRequest, methodNotSupported } from '../../../apimachinery/errors.js';
import { addWarning } from '../field-validation.js';
import { type Negotiated, negotiateResourceOutput } from '../output.js';
import { protobufKindKnown } from '../../codecs/protobuf-encode.js';
import { type Ctx, type RequestCtx, verbNotSupported, requestApiVersion } from './context.js';
import { get, list, watch } from './read.js';
import { create } from './create.js';
import { update, patch } from './update.js';
import { serveScale } from './scale-subresource.js';
import { del, deleteCollection } from './delete.js';

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

const STATUS_VERBS = new Set(['get', 'update', 'patch']);

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
  // As kube's serveStatus (and go-restful's status routes): get, update and patch, nothing else.
  if (info.subresource === 'status' && !STATUS_VERBS.has(info.verb)) throw verbNotSupported(ctx);
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
