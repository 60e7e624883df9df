// A strategy is what differs between kinds; the generic store does everything else the same way
// for namespaces, CRDs, events and every custom resource.
import type { FieldError } from '../../apimachinery/field-errors.js';
import type { ApiError, Qualified } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { NameValidator } from '../../apimachinery/validation/names.js';
import type { FieldLabelConversion } from '../../apimachinery/selectors/fields.js';
import type { UserInfo } from '../../apimachinery/user.js';
import type { TypeNode } from '../../apimachinery/structured-merge/schema.js';
import type { PatchMeta } from '../../apimachinery/strategic-merge/patch-meta.js';
import type { Task } from '../../apimachinery/structured-merge/trampoline.js';
import type { FloatLiterals } from '../../apimachinery/float-literals.js';
import type { GarbageCollectionPolicy, Propagation } from './delete-propagation.js';

/**
 * A kind's validation: its errors, or a task giving them when the work may be long (a CRD's CEL
 * rules compiled), which the store runs sliced so that other requests get turns meanwhile.
 */
export type Validation = FieldError[] | Task<FieldError[]>;

export interface KindInfo {
  group: string;
  /** The plural resource name: `caches`. */
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
}

export const qualifiedResource = (k: KindInfo): Qualified => ({ group: k.group, name: k.resource });
export const qualifiedKind = (k: KindInfo): Qualified => ({ group: k.group, name: k.kind });

/** The context a write runs in: which subresource, whether it is a dry run, what decoding saw. */
export interface WriteContext {
  subresource?: string;
  dryRun: boolean;
  /** The write carries or changes a large document (give-way.ts's LARGE_WRITE_BYTES): its phases give way. */
  large?: boolean;
  /** Where the client wrote numbers with a fraction or exponent (`1.0` is not an integer). */
  floatLiterals?: FloatLiterals;
  /**
   * Called with the fields the kind's schema dropped (kube's strict decoding): the request
   * decides, by its fieldValidation, whether that fails, warns or passes.
   */
  onUnknownFields?: (paths: readonly string[]) => void;
  /** A warning for the client (a `Warning` header), e.g. a CEL rule that now fails on unchanged data. */
  warn?: (text: string) => void;
  /** An annotation on the request's audit event (admission webhooks and policies add them). */
  auditAnnotate?: (key: string, value: string) => void;
  /**
   * The answer to an object kube's decoder would have refused (a malformed metav1.Time in its
   * metadata), given the decoder's message. Without it the store answers as kube's create and
   * update handlers do (transformDecodeError's 400); a patch answers with its own 422.
   */
  decodeError?: (message: string) => ApiError;
  /** The object reaches its Go type through DefaultUnstructuredConverter (a strategic merge patch), not JSON. */
  fromUnstructured?: boolean;
  /** Who asked, for admission; absent for the server's own controllers. */
  user?: UserInfo;
  /**
   * A create's object is the request's own (its decoded body): the store may change it rather than
   * a copy. An update's result is only read by its caller: the watch cache may hold it.
   */
  handedOver?: boolean;
  /**
   * Strings of the object may be slices of the request body's text (its decoder's, body.ts
   * DecodedBody.slicesBody): whatever keeps the object keeps that whole text, so the watch cache
   * does not take a handed-over create's object; it decodes the stored bytes.
   */
  slicesBody?: boolean;
  /**
   * metadata.managedFields bookkeeping (kube's field manager), given the object the request made,
   * defaulted and pruned, before mutating admission, and the stored one (none on create).
   */
  trackFields?: (obj: KubeObject, old: KubeObject | undefined) => Promise<void>;
}

/**
 * kube's RESTCreateStrategy: what a kind does to a new object after the store filled its system
 * metadata, and how the object is judged.
 */
export interface CreateStrategy {
  /** The kind's own fields of a new object: a status it starts with, finalizers, labels. */
  prepare(obj: KubeObject): void;
  /** How metadata.name (and, with prefix, generateName) is judged: kube validates names per kind. */
  readonly validateName: NameValidator;
  /** Everything but ObjectMeta's generic rules, which the store checks itself. */
  validate(obj: KubeObject, ctx: WriteContext): Validation;
}

/**
 * kube's RESTUpdateStrategy, of the main resource or of one subresource (a status write has its
 * own, as kube's statusStrategy: it changes status and nothing else).
 */
export interface UpdateStrategy {
  /**
   * Whether a PUT without metadata.resourceVersion overwrites whatever is stored. kube allows it
   * for namespaces and events, not for CRDs and custom resources (422 instead).
   */
  readonly allowUnconditional: boolean;
  /** The kind's part of an update, after the store carried system metadata over from `old`. */
  prepare(obj: KubeObject, old: KubeObject, ctx: WriteContext): void;
  validate(obj: KubeObject, old: KubeObject, ctx: WriteContext): Validation;
  /**
   * Top-level fields this write puts back as they were (kube's GetResetFields): the main resource's
   * status when there is a status subresource, the spec for a status write. An apply through it
   * does not own them.
   */
  readonly resetFields: readonly string[];
}

/**
 * What a DELETE does: kube's RESTDeleteStrategy with the finalizer half of its generic store
 * (BeforeDelete) and the kinds that replace it (a CRD's and a namespace's REST Delete).
 */
export interface DeleteStrategy {
  /** Whether a DELETE only marks the object (deletionTimestamp), the object going later. */
  marksFirst(obj: KubeObject): boolean;
  /** Marks the object for deletion: deletionTimestamp `now`, and what the kind adds (a namespace turns Terminating). */
  mark(obj: KubeObject, now: string): void;
  /** Whether a marked object must still wait: the update that clears the last finalizer completes the delete. */
  waits(obj: KubeObject): boolean;
  /**
   * kube's DefaultGarbageCollectionPolicy: which GC finalizer a DELETE without a policy adds
   * (none for DeleteDependents, which is Background), or that it never adds one (Unsupported).
   */
  readonly garbageCollection: GarbageCollectionPolicy;
  /**
   * A kind whose REST Delete sets the GC finalizers its own way (a namespace's): the finalizers
   * the DELETE leaves, or undefined for no change. Without it, the generic store's rule.
   */
  finalizersOnDelete?(obj: KubeObject, propagation: Propagation): string[] | undefined;
}

/**
 * metadata.generation, for the kinds that keep one: 1 at create, one more for each update that
 * changes the spec (what `specChanged` says the spec is) and when a DELETE marks the object.
 */
export interface GenerationPolicy {
  specChanged(old: KubeObject, obj: KubeObject): boolean;
}

export interface Strategy {
  readonly kind: KindInfo;
  readonly create: CreateStrategy;
  /** The main resource's update strategy; subresources without their own (scale) use it too. */
  readonly update: UpdateStrategy;
  /**
   * Update strategies of subresources that write something other than the spec: status, a
   * namespace's finalize. Their writes never bump metadata.generation.
   */
  readonly subresources: Readonly<Record<string, UpdateStrategy>>;
  readonly delete: DeleteStrategy;
  /** Absent for kinds without metadata.generation (namespaces, events). */
  readonly generation?: GenerationPolicy;
  /** Defaulting and pruning of the user's fields (schema-driven for custom resources), on create and update. */
  canonicalize(obj: KubeObject, ctx: WriteContext): void;
  /**
   * What kube's mutating webhook plugin does to an object a webhook patched, before the next
   * webhook sees it: decodes it (into a built-in kind's type, its unknown fields dropped without a
   * word) and defaults it (a custom resource by its version's schema, nothing pruned).
   */
  defaultPatched(obj: KubeObject): void;
  /**
   * Whether integers beyond 2^53 are kept exact (as bigints, int64 as kube keeps them). Custom
   * resources' fields are free-form data; built-in kinds' numbers are our code's, kept as numbers.
   */
  readonly exactIntegers: boolean;
  /**
   * Whether a client's object decodes into a Go type (built-in kinds) rather than staying
   * unstructured (custom resources): the words of kube's decoding errors depend on it.
   */
  readonly typed: boolean;
  /** What every object read from storage goes through (custom resources: pruning and defaults). */
  fromStorage?(obj: KubeObject): void;
  /**
   * The kind's structure in `apiVersion` as field ownership and server-side apply see it (kube's
   * managed-fields type converter): which lists are sets or keyed maps, which maps are atomic.
   * Built-in kinds' are derived from their OpenAPI schema, custom resources' from their CRD's.
   */
  fieldTypes(apiVersion: string): TypeNode;
  /**
   * kube's patch strategies and merge keys in `apiVersion` (the Go struct tags, which the built-in
   * kinds' OpenAPI schemas carry), for strategic merge patch; custom resources have none and refuse
   * that patch type (415).
   */
  patchMeta?(apiVersion: string): PatchMeta;
  /** The fields a field selector may name, with their values for this object. */
  selectableFields(obj: KubeObject): Record<string, string>;
  /** Which field selector labels the kind accepts, with kube's error text for the others. */
  readonly fieldLabels: FieldLabelConversion;
  /**
   * Kinds served in several versions (custom resources): objects are stored in `storageApiVersion`
   * and `convert` turns objects into another version (a CRD's None or Webhook conversion).
   */
  readonly versions?: {
    storageApiVersion: string;
    convert(objects: KubeObject[], apiVersion: string): Promise<KubeObject[]>;
  };
}

/** The strategy of a write to the main resource or to `subresource`. */
export function updateStrategyFor(strategy: Strategy, subresource: string | undefined): UpdateStrategy {
  return (subresource && strategy.subresources[subresource]) || strategy.update;
}
