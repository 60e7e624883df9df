// The scale subresource: GET, PUT, PATCH and apply of `<name>/scale`, the object seen and
// changed as an autoscaling/v1 Scale through the resource's scale mapping.
import { badRequest, unsupportedMediaType } from '../../../apimachinery/errors.js';
import { type ScaleMapping, TYPED_PROFILE } from '../../registry/catalog.js';
import { type JsonValue, type KubeObject, cloneJson, isJsonObject } from '../../../apimachinery/object.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { APPLY_PATCH_TYPE, type WriteOptions } from '../write-options.js';
import { gvkString, unstructuredGVK } from '../../../apimachinery/versions.js';
import { decodeObjectBody, parseJson, readBody } from '../body.js';
import { sendJson } from '../respond.js';
import { patchMediaType } from '../negotiate.js';
import { type Scale, applyScale, scaleOf } from '../scale.js';
import { type Ctx, verbNotSupported, namespaceOf, requestApiVersion, inRequestVersion } from './context.js';
import { checkName } from './object-body.js';
import { writeOptions, fieldManager, writeContext } from './write-context.js';
import { readApplyConfiguration, mergePatched } from './update.js';

/** GET, PUT and PATCH of `<name>/scale`: the object seen and changed as an autoscaling/v1 Scale. */
export async function serveScale(ctx: Ctx, mapping: ScaleMapping): Promise<void> {
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
    const patchDoc = (await parseJson(await readBody(ctx.req, ctx.maxRequestBodyBytes))).value;
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
