// The steps of a create and an update that need no storage and no admission: what kube's handlers
// refuse before anything runs, BeforeCreate's and BeforeUpdate's metadata, the kind's decoding
// (defaults, pruning) and Prepare, and validation answered with kube's 422. The generic store runs
// them between admission and storage; `mini-apiserver validate` runs them alone, so both answer alike.
import { randomUUID } from 'node:crypto';
import { type ApiError, badRequest, invalid } from '../../apimachinery/errors.js';
import { type FieldError, goQuote } from '../../apimachinery/field-errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { metaDecodeError } from '../../apimachinery/validation/object-meta.js';
import { call, isTask, type Task } from '../../apimachinery/structured-merge/trampoline.js';
import {
  ensureNamespaceMatchesRequest,
  fillObjectMetaSystemFields,
  generateNameFrom,
  wipeObjectMetaSystemFields,
} from './object-meta-ops.js';
import {
  type KindInfo,
  type Strategy,
  type Validation,
  type WriteContext,
  qualifiedKind,
  updateStrategyFor,
} from './strategy.js';
import { validateObjectMetaForCreate, validateObjectMetaForUpdate } from './validate-common.js';

/** rest.ExpectedNamespaceForScope: the namespace an object of this kind must have, empty for a cluster-scoped kind. */
export const expectedNamespace = (kind: KindInfo, namespace: string | undefined): string =>
  kind.namespaced ? (namespace ?? '') : '';

/** The error kube's decoder would meet in the object's metadata, worded by how it decodes. */
export function decodeErrorOf(strategy: Strategy, obj: KubeObject, ctx: WriteContext): string | undefined {
  return metaDecodeError(obj.metadata, { typed: strategy.typed, fromUnstructured: ctx.fromUnstructured === true });
}

/**
 * What kube's decoder refuses before anything else runs: a metav1.Time in the metadata that does
 * not parse, metadata fields of the wrong shape. The create and update handlers answer
 * transformDecodeError's 400, `<Kind> in version "<v>" cannot be handled as a <Kind>: <Go's error>`.
 */
export function checkDecodable(strategy: Strategy, obj: KubeObject, ctx: WriteContext): void {
  const message = decodeErrorOf(strategy, obj, ctx);
  if (message !== undefined) throw decodeFailure(strategy.kind.kind, obj, message, ctx);
}

/**
 * How a write answers for an object that does not decode into the kind's Go type, given the
 * decoder's message: transformDecodeError's 400, or the write's own answer (a patch's 422).
 */
export function decodeFailure(kind: string, obj: KubeObject, message: string, ctx: WriteContext): ApiError {
  if (ctx.decodeError) return ctx.decodeError(message);
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
  const sent = typeof obj.kind === 'string' && obj.kind ? obj.kind : kind;
  return badRequest(`${sent} in version ${goQuote(version)} cannot be handled as a ${kind}: ${message}`);
}

/**
 * An object the store canonicalized before mutating admission, as kube's decoder leaves a request's
 * (its unknown fields told to the request then): `again` when it is to be canonicalized once more,
 * quietly, as kube defaults a webhook's patch and prunes what it stores without a word to the
 * client.
 */
export interface Decoded {
  again: boolean;
}

/** The kind's canonicalize, before validation: at once, or again after mutating admission (`decoded`). */
function canonicalize(strategy: Strategy, obj: KubeObject, ctx: WriteContext, decoded: Decoded | undefined): void {
  if (!decoded) strategy.canonicalize(obj, ctx);
  else if (decoded.again)
    strategy.canonicalize(obj, ctx.onUnknownFields ? { ...ctx, onUnknownFields: ignoreUnknownFields } : ctx);
}

const ignoreUnknownFields = (): void => {};

/** What a create refuses of the client's object before admission: undecodable metadata, a resourceVersion. */
export function checkNewObject(strategy: Strategy, obj: KubeObject, ctx: WriteContext): void {
  checkDecodable(strategy, obj, ctx);
  if (obj.metadata.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
}

/**
 * BeforeCreate up to validation (kube's Store.Create after mutating admission): the request's
 * namespace, a generated name, the system fields, generation 1, then the kind's decoding defaults
 * and pruning and its PrepareForCreate.
 */
export function prepareCreate(
  strategy: Strategy,
  obj: KubeObject,
  requestNamespace: string,
  ctx: WriteContext,
  /** metav1.Time now, on the server's clock: the creationTimestamp. */
  now: string,
  generateName: (base: string) => string = generateNameFrom,
  decoded?: Decoded,
): void {
  const meta = obj.metadata;
  ensureNamespaceMatchesRequest(requestNamespace, meta);
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  wipeObjectMetaSystemFields(meta);
  fillObjectMetaSystemFields(meta, now, randomUUID());
  if (strategy.generation) meta.generation = 1;
  else delete meta.generation;
  canonicalize(strategy, obj, ctx, decoded);
  strategy.create.prepare(obj);
}

function* errorsOf(v: Validation): Task<FieldError[]> {
  return isTask(v) ? yield* call(v) : v;
}

/** A create's validation: ObjectMeta's rules and the kind's; kube's 422 when anything fails. */
export function* validateCreate(strategy: Strategy, obj: KubeObject, ctx: WriteContext): Task<void> {
  const create = strategy.create;
  const errs = [
    ...(yield* validateObjectMetaForCreate(obj, strategy.kind, create.validateName)),
    ...(yield* errorsOf(create.validate(obj, ctx))),
  ];
  if (errs.length) throw invalid(qualifiedKind(strategy.kind), obj.metadata.name ?? '', errs);
}

/**
 * BeforeUpdate up to validation: the request's namespace, the system fields carried over from
 * `old`, the kind's decoding and PrepareForUpdate (of the subresource written), and a new
 * generation when the spec changed.
 */
export function prepareUpdate(
  strategy: Strategy,
  obj: KubeObject,
  old: KubeObject,
  requestNamespace: string,
  ctx: WriteContext,
  decoded?: Decoded,
): void {
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  const meta = obj.metadata;
  ensureNamespaceMatchesRequest(requestNamespace, meta);
  const oldMeta = old.metadata;
  // System fields are the server's: an update can neither set nor clear them.
  meta.resourceVersion = oldMeta.resourceVersion;
  if (!meta.uid) meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined)
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  const generation = strategy.generation;
  if (generation) meta.generation = oldMeta.generation ?? 1;
  if (meta.name === undefined) meta.name = oldMeta.name;
  const update = updateStrategyFor(strategy, ctx.subresource);
  canonicalize(strategy, obj, ctx, decoded);
  update.prepare(obj, old, ctx);
  // A subresource with a strategy of its own (status, finalize) never writes the spec.
  if (update === strategy.update && generation?.specChanged(old, obj))
    obj.metadata.generation = (oldMeta.generation ?? 1) + 1;
}

/** An update's validation: ObjectMeta's rules and the kind's (ratcheting, transition rules); kube's 422. */
export function* validateUpdate(strategy: Strategy, obj: KubeObject, old: KubeObject, ctx: WriteContext): Task<void> {
  const update = updateStrategyFor(strategy, ctx.subresource);
  const errs = [
    ...(yield* validateObjectMetaForUpdate(obj, old, strategy.kind)),
    ...(yield* errorsOf(update.validate(obj, old, ctx))),
  ];
  if (errs.length) throw invalid(qualifiedKind(strategy.kind), obj.metadata.name ?? '', errs);
}
