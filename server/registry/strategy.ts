// A strategy is what differs between kinds; the generic store does everything else the same way
// for namespaces, CRDs, events and every custom resource.
import type { FieldError } from '../../apimachinery/field-errors.js';
import type { ApiError, Qualified } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { NameValidator } from '../../apimachinery/validation/names.js';
import type { FieldLabelConversion } from '../../apimachinery/selectors/fields.js';
import type { UserInfo } from '../../apimachinery/user.js';

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
  /** Paths of numbers the client wrote with a fraction or exponent (`1.0` is not an integer). */
  floatLiterals?: ReadonlySet<string>;
  /**
   * Called with the fields the kind's schema dropped (kube's strict decoding): the request
   * decides, by its fieldValidation, whether that fails, warns or passes.
   */
  onUnknownFields?: (paths: readonly string[]) => void;
  /** A warning for the client (a `Warning` header), e.g. a CEL rule that now fails on unchanged data. */
  warn?: (text: string) => void;
  /**
   * The answer to an object kube's decoder would have refused (a malformed metav1.Time in its
   * metadata), given the decoder's message. Without it the store answers as kube's create and
   * update handlers do (transformDecodeError's 400); a patch answers with its own 422.
   */
  decodeError?: (message: string) => ApiError;
  /** Who asked, for admission; absent for the server's own controllers. */
  user?: UserInfo;
}

export interface Strategy {
  readonly kind: KindInfo;
  /** Whether writes to the main resource ignore `.status` (and `/status` writes only change it). */
  readonly statusSubresource: boolean;
  /** Whether spec-side changes bump metadata.generation (every kind but namespaces and events). */
  readonly tracksGeneration: boolean;
  /** Whether marking the object for deletion bumps its generation (kube's generic store does; its CRD storage does not). */
  readonly deletionBumpsGeneration: boolean;
  /**
   * Whether a PUT without metadata.resourceVersion overwrites whatever is stored. kube allows it
   * for namespaces and events, not for CRDs and custom resources (422 instead).
   */
  readonly allowUnconditionalUpdate: boolean;
  /**
   * Whether integers beyond 2^53 are kept exact (as bigints, int64 as kube keeps them). Custom
   * resources' fields are free-form data; built-in kinds' numbers are our code's, kept as numbers.
   */
  readonly exactIntegers: boolean;

  /** Kind-specific preparation of a new object, after the store filled system metadata. */
  prepareForCreate(obj: KubeObject): void;
  /** Kind-specific preparation of an update, after the store carried system metadata over. */
  prepareForUpdate(obj: KubeObject, old: KubeObject, ctx: WriteContext): void;
  /** Defaulting and pruning of the user's fields (schema-driven for custom resources). */
  canonicalize(obj: KubeObject, ctx: WriteContext): void;
  /** What every object read from storage goes through (custom resources: pruning and defaults). */
  fromStorage?(obj: KubeObject): void;
  /** Everything but ObjectMeta's generic rules, which the store checks itself. */
  validate(obj: KubeObject, ctx: WriteContext): FieldError[];
  validateUpdate(obj: KubeObject, old: KubeObject, ctx: WriteContext): FieldError[];
  /** How metadata.name (and, with prefix, generateName) is judged: kube validates names per kind. */
  readonly validateName: NameValidator;
  /**
   * Whether something must still happen before the object may go: a DELETE then only marks it
   * (deletionTimestamp), and the update that clears the last finalizer completes the delete.
   */
  hasPendingFinalizers(obj: KubeObject): boolean;
  /** Kind-specific changes when a DELETE marks the object (a namespace turns Terminating). */
  markedForDeletion?(obj: KubeObject): void;
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
