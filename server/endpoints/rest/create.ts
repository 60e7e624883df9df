// POST to a collection: the decoded object, unknown fields handled as fieldValidation asks,
// created through the store's chain, answered 201.
import type { JsonObject } from '../../../apimachinery/object.js';
import { dropUnknownFields } from '../../../apimachinery/apis/unknown-fields.js';
import { addWarning, strictDecoding } from '../field-validation.js';
import { type Ctx, keepStoredBody, verbNotSupported, namespaceOf, respondObject } from './context.js';
import { readObject, decodeError, checkNamespace } from './object-body.js';
import { writeOptions, writeContext } from './write-context.js';

export async function create(ctx: Ctx): Promise<void> {
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
  if (ctx.desc.serving.typed) onUnknownFields(dropUnknownFields(obj as unknown as JsonObject, ctx.desc.schema));
  const created = await ctx.store.create(
    namespaceOf(ctx),
    obj,
    // The decoded body is this request's alone (audit keeps a copy of its own).
    writeContext(ctx, options, {
      floatLiterals: decoded.floatLiterals,
      onUnknownFields,
      large,
      handedOver: true,
      slicesBody: decoded.slicesBody,
    }),
  );
  keepStoredBody(ctx, created);
  await respondObject(ctx, 201, created);
}
