// The parts kinds compose their strategies from, so a kind states only what makes it different:
// the generic create, update and delete of kube's generic store, the status subresource's split
// of an object, and the spec generation.
import { type JsonObject, type KubeObject, cloneJson } from '../../apimachinery/object.js';
import { dropUnknownFields } from '../../apimachinery/apis/unknown-fields.js';
import type {
  CreateStrategy,
  DeleteStrategy,
  GenerationPolicy,
  KindInfo,
  Strategy,
  UpdateStrategy,
} from './strategy.js';
import { validateDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { supportedFieldLabels } from '../../apimachinery/selectors/fields.js';
import { KUBE_OBJECT_PATCH_META } from '../../apimachinery/strategic-merge/kube-types.js';
import { specChanged } from './object-meta-ops.js';
import {
  type TypeNode,
  deducedType,
  objectMetaType,
  scalarType,
  structType,
} from '../../apimachinery/structured-merge/schema.js';

export interface StrategyParts extends Partial<Omit<Strategy, 'kind' | 'create' | 'update' | 'delete'>> {
  create?: Partial<CreateStrategy>;
  update?: Partial<UpdateStrategy>;
  delete?: Partial<DeleteStrategy>;
  /** Custom resources: no Go type to decode into (their schema prunes them in canonicalize). */
  unstructured?: boolean;
}

export function defineStrategy(kind: KindInfo, parts: StrategyParts = {}): Strategy {
  const { create, update, delete: del, unstructured, canonicalize, ...rest } = parts;
  const selectableFields = rest.selectableFields ?? metadataFields(kind.namespaced);
  return {
    kind,
    canonicalize: unstructured
      ? (canonicalize ?? (() => {}))
      : (obj, ctx) => {
          // kube decodes a client's built-in object into its Go type: what the type has no field
          // for is gone. The server's own writes come from typed code and are not decoded.
          if (ctx.onUnknownFields) ctx.onUnknownFields(dropUnknownFields(obj as unknown as JsonObject));
          canonicalize?.(obj, ctx);
        },
    exactIntegers: false,
    typed: !unstructured,
    fieldTypes: () => KUBE_OBJECT_TYPE,
    subresources: {},
    selectableFields,
    fieldLabels: supportedFieldLabels(Object.keys(selectableFields({ metadata: {} }))),
    patchMeta: KUBE_OBJECT_PATCH_META,
    ...rest,
    create: { prepare: () => {}, validateName: validateDNS1123Subdomain, validate: () => [], ...create },
    update: { allowUnconditional: true, prepare: () => {}, validate: () => [], resetFields: [], ...update },
    delete: { ...FINALIZING_DELETE, ...del },
  };
}

/**
 * A built-in kind's structure for field ownership: apiVersion, kind, ObjectMeta and the fields
 * given; fields not described are deduced (maps granular, lists atomic), as SMD types the unknown.
 */
export function kubeObjectType(fields: Record<string, TypeNode> = {}): TypeNode {
  return structType(
    { apiVersion: scalarType('string'), kind: scalarType('string'), metadata: objectMetaType, ...fields },
    { elementType: deducedType },
  );
}

const KUBE_OBJECT_TYPE = kubeObjectType();

/** The field selector set every kind supports: metadata.name, and metadata.namespace when namespaced. */
export function metadataFields(namespaced: boolean): (obj: KubeObject) => Record<string, string> {
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
