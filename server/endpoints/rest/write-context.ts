// The one context of a write, built here for every verb that writes: its options (dry run, field
// manager, fieldValidation), who asks, warnings and audit annotations, and the field manager's
// tracking of what the write changes.
import { auditOf } from '../../audit/context.js';
import { type KubeObject, nowTimestamp } from '../../../apimachinery/object.js';
import { type WriteContext, updateStrategyFor } from '../../registry/strategy.js';
import { runSliced } from '../../registry/give-way.js';
import { addWarning } from '../field-validation.js';
import { type WriteOptions, parseWriteOptions } from '../write-options.js';
import { FieldManager } from '../../../apimachinery/managed-fields/field-manager.js';
import { type Ctx, type RequestCtx, requestApiVersion } from './context.js';

/** The options of a create, update or patch, validated together as Validate<Verb>Options. */
export const writeOptions = (
  ctx: Ctx,
  kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
  patchType?: string,
): WriteOptions => parseWriteOptions(ctx.query, kind, ctx.req.headers['user-agent'], patchType);

/** The field manager of this request's version and subresource. */
export function fieldManager(ctx: RequestCtx): FieldManager {
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
type Decoding = Pick<
  WriteContext,
  'floatLiterals' | 'onUnknownFields' | 'decodeError' | 'fromUnstructured' | 'large' | 'handedOver' | 'slicesBody'
>;

/**
 * The one context of a write, whatever its verb (create, update, patch, apply, and their scale
 * forms), handed to the store that runs kube's order: field manager, mutating admission, strategy,
 * validating admission, storage. It carries who asks, dry run, the client's warnings, admission's
 * audit annotations, and the field manager's record of a non-apply write (an apply's field
 * manager runs in its patcher, on the live object).
 */
export function writeContext(ctx: Ctx, options: WriteOptions, decoding: Decoding = {}, apply = false): WriteContext {
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
