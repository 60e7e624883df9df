// delete and deletecollection: DeleteOptions read from the body or, without one, the query, and
// checked as kube checks them; the answer kube's delete handler gives.
import { ApiError, successStatus, badRequest, invalid } from '../../../apimachinery/errors.js';
import { type FieldError, invalid as invalidField, notSupported } from '../../../apimachinery/field-errors.js';
import { PROPAGATION_POLICIES, type PropagationPolicy } from '../../registry/delete-propagation.js';
import { auditOf } from '../../audit/context.js';
import { isJsonObject } from '../../../apimachinery/object.js';
import { qualifiedResource } from '../../registry/strategy.js';
import type { DeleteOptions } from '../../registry/store.js';
import { queryOptionalBool } from '../../request/request-info.js';
import { dryRunErrors } from '../write-options.js';
import { decodeObjectBody, readBody } from '../body.js';
import { sendJson } from '../respond.js';
import { type Ctx, verbNotSupported, namespaceOf, inRequestVersion, respondObject } from './context.js';
import { listOptions } from './read.js';

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

export async function del(ctx: Ctx): Promise<void> {
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

export async function deleteCollection(ctx: Ctx): Promise<void> {
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
