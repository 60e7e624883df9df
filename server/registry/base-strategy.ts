// The parts kinds compose their strategies from, so a kind states only what makes it different:
// the generic create, update and delete of kube's generic store, the status subresource's split
// of an object, and the spec generation.
import { internalError } from '../../apimachinery/errors.js';
import { type JsonObject, type KubeObject, cloneJson } from '../../apimachinery/object.js';
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { dropUnknownFields } from '../../apimachinery/apis/unknown-fields.js';
import type {
  CreateStrategy,
  DeleteStrategy,
  GenerationPolicy,
  KindInfo,
  Strategy,
  UpdateStrategy,
  WriteContext,
} from './strategy.js';
import { validateDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { supportedFieldLabels } from '../../apimachinery/selectors/fields.js';
import { patchMetaFromSchema } from '../../apimachinery/strategic-merge/patch-meta.js';
import { specChanged } from './object-meta-ops.js';
import { type TypeNode, fromOpenAPISchema } from '../../apimachinery/structured-merge/schema.js';

interface StrategyParts
  extends Partial<Omit<Strategy, 'kind' | 'create' | 'update' | 'delete' | 'fieldTypes' | 'patchMeta'>> {
  create?: Partial<CreateStrategy>;
  update?: Partial<UpdateStrategy>;
  delete?: Partial<DeleteStrategy>;
  /**
   * A built-in kind's OpenAPI schema per apiVersion it is written in (`v1`, `events.k8s.io/v1`):
   * the one description its field ownership types, strategic merge patch metadata and known
   * fields are derived from. Every typed kind has one.
   */
  schemas?: Readonly<Record<string, JSONSchemaProps>>;
  /** Custom resources: no Go type to decode into; their schema prunes them in canonicalize and types their fields. */
  unstructured?: { fieldTypes: Strategy['fieldTypes'] };
}

const fieldTypesBySchema = new WeakMap<JSONSchemaProps, TypeNode>();

/** kube's managed-fields type of a kind, from its schema, converted once. */
function fieldTypesOf(schema: JSONSchemaProps): TypeNode {
  let type = fieldTypesBySchema.get(schema);
  if (!type) fieldTypesBySchema.set(schema, (type = fromOpenAPISchema(schema)));
  return type;
}

export function defineStrategy(kind: KindInfo, parts: StrategyParts = {}): Strategy {
  const { create, update, delete: del, unstructured, canonicalize, defaultPatched, schemas, ...rest } = parts;
  const selectableFields = rest.selectableFields ?? metadataFields(kind.namespaced);
  const schemaIn = (apiVersion: unknown): JSONSchemaProps | undefined =>
    typeof apiVersion === 'string' && schemas && Object.hasOwn(schemas, apiVersion) ? schemas[apiVersion] : undefined;
  const schemaOf = (apiVersion: string): JSONSchemaProps => {
    const schema = schemaIn(apiVersion);
    if (!schema) throw new Error(`${kind.kind} has no schema in ${apiVersion}`);
    return schema;
  };
  const typedParts: Pick<Strategy, 'fieldTypes' | 'patchMeta'> = unstructured
    ? { fieldTypes: unstructured.fieldTypes }
    : {
        fieldTypes: (apiVersion) => fieldTypesOf(schemaOf(apiVersion)),
        patchMeta: (apiVersion) => patchMetaFromSchema(schemaOf(apiVersion)),
      };
  const typedCanonicalize: Strategy['canonicalize'] = (obj, ctx) => {
    // kube decodes a client's built-in object into its Go type: what the type has no field
    // for is gone. The server's own writes come from typed code and are not decoded.
    if (ctx.onUnknownFields)
      ctx.onUnknownFields(dropUnknownFields(obj as unknown as JsonObject, schemaIn(obj.apiVersion)));
    canonicalize?.(obj, ctx);
  };
  return {
    kind,
    canonicalize: unstructured ? (canonicalize ?? (() => {})) : typedCanonicalize,
    defaultPatched: defaultPatched ?? (unstructured ? () => {} : (obj) => typedCanonicalize(obj, PATCHED_BY_A_WEBHOOK)),
    exactIntegers: false,
    typed: !unstructured,
    subresources: {},
    selectableFields,
    fieldLabels: supportedFieldLabels(Object.keys(selectableFields({ metadata: {} }))),
    ...typedParts,
    ...rest,
    create: { prepare: () => {}, validateName: validateDNS1123Subdomain, validate: () => [], ...create },
    update: { allowUnconditional: true, prepare: () => {}, validate: () => [], resetFields: [], ...update },
    delete: { ...FINALIZING_DELETE, ...del },
  };
}

/**
 * A webhook's patched object, decoded as kube's mutating dispatcher decodes it: its unknown fields
 * dropped, unreported; a value its Go type cannot hold is the dispatcher's 500 InternalError, not
 * the request's 400.
 */
const PATCHED_BY_A_WEBHOOK: WriteContext = {
  dryRun: false,
  onUnknownFields: () => {},
  decodeError: (message) => internalError(new Error(message)),
};

/** The field selector set every kind supports: metadata.name, and metadata.namespace when namespaced. */
function metadataFields(namespaced: boolean): (obj: KubeObject) => Record<string, string> {
  return (obj) => {
    const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
    if (namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
    return fields;
  };
}

/** kube's custom resource rule, which built-in kinds follow for their spec: anything outside metadata. */
export const SPEC_GENERATION: GenerationPolicy = { specChanged };

const hasFinalizers = (obj: KubeObject): boolean => Boolean(obj.metadata.finalizers?.length);

/**
 * The generic store's delete (BeforeDelete, updateForGracefulDeletionAndFinalizers): an object with
 * finalizers is marked, with a grace period of 0 and its generation bumped when it has one, and
 * goes when the last finalizer does.
 */
export const FINALIZING_DELETE: DeleteStrategy = {
  marksFirst: hasFinalizers,
  mark(obj, now) {
    obj.metadata.deletionTimestamp = now;
    obj.metadata.deletionGracePeriodSeconds = 0;
    if ((obj.metadata.generation ?? 0) > 0) obj.metadata.generation! += 1;
  },
  waits: hasFinalizers,
  // No kind we serve overrides it: kube's kinds with OrphanDependents are legacy workload versions.
  garbageCollection: 'DeleteDependents',
};

/**
 * A kind whose status is written only through /status: a create starts without one, an update
 * of the main resource keeps the stored one (kube's PrepareForCreate and PrepareForUpdate).
 */
export const withoutStatus = (obj: KubeObject): void => {
  delete obj['status'];
};

export const keepStoredStatus = (obj: KubeObject, old: KubeObject): void => {
  if (old['status'] === undefined) delete obj['status'];
  else obj['status'] = cloneJson(old['status']);
};

/**
 * The status subresource's update strategy (kube's statusStrategy): the stored object with the
 * client's status, and nothing else of what the client sent but the managedFields its write
 * recorded.
 */
export function statusUpdate(
  main: UpdateStrategy,
  validate: UpdateStrategy['validate'] = main.validate,
  resetFields: readonly string[] = ['spec'],
): UpdateStrategy {
  return {
    allowUnconditional: main.allowUnconditional,
    prepare(obj, old) {
      const status = obj['status'];
      const managedFields = obj.metadata.managedFields;
      for (const key of Object.keys(obj)) delete obj[key];
      Object.assign(obj, cloneJson(old));
      if (status === undefined) delete obj['status'];
      else obj['status'] = status;
      if (managedFields === undefined) delete obj.metadata.managedFields;
      else obj.metadata.managedFields = managedFields;
    },
    validate,
    resetFields,
  };
}

/** The main resource's reset fields when the kind has a status subresource. */
export const STATUS_RESET: readonly string[] = ['status'];
