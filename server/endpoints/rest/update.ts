// The verbs that change an object in place: update (PUT), patch (JSON patch, merge patch,
// strategic merge patch) and server-side apply, each inside the store's compare-and-swap.
import { ApiError, badRequest, conflict, invalid, unsupportedMediaType } from '../../../apimachinery/errors.js';
import { invalid as invalidField } from '../../../apimachinery/field-errors.js';
import { auditOf } from '../../audit/context.js';
import { strategicMergePatch } from '../../../apimachinery/strategic-merge/merge.js';
import type { PatchMeta } from '../../../apimachinery/strategic-merge/patch-meta.js';
import { type JsonObject, type JsonValue, type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import { dropUnknownFields } from '../../../apimachinery/apis/unknown-fields.js';
import { qualifiedResource } from '../../registry/strategy.js';
import { LARGE_WRITE_BYTES, giveWayFor } from '../../registry/give-way.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { addWarning, strictDecoding } from '../field-validation.js';
import { APPLY_PATCH_TYPE, type WriteOptions } from '../write-options.js';
import { type DecodedBody, parseJson, parseYaml, readBody } from '../body.js';
import { FloatLiterals } from '../../../apimachinery/float-literals.js';
import { patchMediaType } from '../negotiate.js';
import { stringifyJSON } from '../../../apimachinery/json.js';
import { goFormat } from '../../../apimachinery/strategic-merge/go-format.js';
import {
  type Ctx,
  inRequestVersion,
  keepStoredBody,
  namespaceOf,
  requestApiVersion,
  respondObject,
} from './context.js';
import { readObject, decodeError, checkObject, checkName, checkNamespace } from './object-body.js';
import { writeOptions, fieldManager, writeContext } from './write-context.js';

export async function update(ctx: Ctx): Promise<void> {
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
  if (ctx.desc.serving.typed) onUnknownFields(dropUnknownFields(obj as unknown as JsonObject, ctx.desc.schema));
  const name = ctx.info.name;
  checkName(obj.metadata.name, name);
  const updated = await ctx.store.update(namespaceOf(ctx), name, () => obj, {
    ...writeContext(ctx, options, { floatLiterals: decoded.floatLiterals, onUnknownFields, large }),
    replace: true,
  });
  await respondObject(ctx, 200, updated);
}

export async function patch(ctx: Ctx): Promise<void> {
  const type = patchMediaType(ctx.req.headers['content-type']);
  const allowed = ctx.desc.serving.patchTypes;
  if (!allowed.includes(type)) throw unsupportedMediaType(allowed);
  const options = writeOptions(ctx, 'PatchOptions', type);
  if (type === APPLY_PATCH_TYPE) return applyPatch(ctx, options);
  const bytes = await readBody(ctx.req, ctx.maxRequestBodyBytes);
  const large = bytes.length >= LARGE_WRITE_BYTES;
  // Large bodies that arrive together are decoded one per turn of the loop, not all in one.
  await giveWayFor(large);
  const decoded = await parseJson(bytes, ctx.store.strategy.exactIntegers);
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
      else
        result = mergePatched(
          original as unknown as JsonValue,
          patchDoc,
          type,
          ctx.store.strategy.patchMeta?.(requestApiVersion(ctx)),
        );
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
export async function readApplyConfiguration(
  ctx: Ctx,
): Promise<{ config: KubeObject; decoded: DecodedBody; large: boolean }> {
  const bytes = await readBody(ctx.req, ctx.maxRequestBodyBytes);
  const text = bytes.toString('utf8');
  const exact = ctx.store.strategy.exactIntegers;
  // JSON decodes faster and reports repeated keys.
  const decoded = /^\s*\{/.test(text)
    ? await parseJson(bytes, exact, text)
    : {
        value: await parseYaml(text, exact),
        duplicateFields: [],
        floatLiterals: new FloatLiterals(),
        slicesBody: true,
      };
  if (!isJsonObject(decoded.value)) throw badRequest('error decoding YAML: the apply configuration must be an object');
  const config = decoded.value as unknown as KubeObject;
  if (config.metadata === undefined || config.metadata === null) config.metadata = {};
  else if (!isJsonObject(config.metadata)) throw badRequest('error decoding YAML: metadata must be an object');
  return { config, decoded, large: bytes.length >= LARGE_WRITE_BYTES };
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
    // The configuration is only read: what the merge shares of it (atomic values, kept whole),
    // the store copies before any step of the write changes it.
    const obj = fields.apply(live, config, options.fieldManager, options.force);
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
    // Nothing to apply to: the configuration is the new object, presented first as clients write
    // it (the merge puts the live object's metadata first), so that the reply is its stored text.
    const merged = applyTo({ metadata: {} });
    const obj: KubeObject = { apiVersion: merged.apiVersion, kind: merged.kind, ...merged };
    if (obj.metadata.uid)
      throw conflict(
        qualifiedResource(ctx.store.kind),
        name,
        `uid mismatch: the provided object specified uid ${obj.metadata.uid}, and no existing object was found`,
      );
    try {
      // The applied object is this attempt's alone (a retry applies the configuration again): the
      // store may keep it, as a POST's, and the reply is made of the text it stored.
      const created = await ctx.store.create(ns, obj, {
        ...writeCtx,
        handedOver: true,
        slicesBody: decoded.slicesBody,
      });
      keepStoredBody(ctx, created);
      return await respondObject(ctx, 201, created);
    } catch (err) {
      // Created meanwhile by someone else: apply to theirs.
      if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
    }
  }
}

/** A JSON merge patch or, for built-in kinds, kube's strategic merge patch by the kind's struct tags. */
export function mergePatched(
  original: JsonValue,
  patchDoc: unknown,
  type: string,
  meta: PatchMeta | undefined,
): JsonValue {
  if (type !== 'application/strategic-merge-patch+json') return applyMergePatch(original, patchDoc);
  return strategicMergePatch(original as JsonObject, patchDoc, meta ?? {});
}
