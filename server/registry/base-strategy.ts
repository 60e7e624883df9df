// The parts kinds compose their strategies from, so a kind states only what makes it different:
// the generic create, update and delete of kube's generic store, the status subresource's split
// of an object, and the spec generation.
import { type KubeObject, cloneJson, nowTimestamp } from '../../apimachinery/object.js';
import type { CreateStrategy, DeleteStrategy, GenerationPolicy, KindInfo, Strategy, UpdateStrategy } from './strategy.js';
import { validateDNS1123Subdomain } from '../../apimachinery/validation/names.js';
import { supportedFieldLabels } from '../../apimachinery/selectors/fields.js';
import { specChanged } from './object-meta-ops.js';

export interface StrategyParts extends Partial<Omit<Strategy, 'kind' | 'create' | 'update' | 'delete'>> {
  create?: Partial<CreateStrategy>;
  update?: Partial<UpdateStrategy>;
  delete?: Partial<DeleteStrategy>;
}

export function defineStrategy(kind: KindInfo, parts: StrategyParts = {}): Strategy {
  const { create, update, delete: del, ...rest } = parts;
  const selectableFields = rest.selectableFields ?? metadataFields(kind.namespaced);
  return {
    kind,
    canonicalize: () => {},
    exactIntegers: false,
    subresources: {},
    selectableFields,
    fieldLabels: supportedFieldLabels(Object.keys(selectableFields({ metadata: {} }))),
    ...rest,
    create: { prepare: () => {}, validateName: validateDNS1123Subdomain, validate: () => [], ...create },
    update: { allowUnconditional: true, prepare: () => {}, validate: () => [], ...update },
    delete: { ...FINALIZING_DELETE, ...del },
  };
}

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
  mark(obj) {
    obj.metadata.deletionTimestamp = nowTimestamp();
    obj.metadata.deletionGracePeriodSeconds = 0;
    if ((obj.metadata.generation ?? 0) > 0) obj.metadata.generation! += 1;
  },
  waits: hasFinalizers,
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
 * client's status, and nothing else of what the client sent.
 */
export function statusUpdate(main: UpdateStrategy, validate: UpdateStrategy['validate'] = main.validate): UpdateStrategy {
  return {
    allowUnconditional: main.allowUnconditional,
    prepare(obj, old) {
      const status = obj['status'];
      for (const key of Object.keys(obj)) delete obj[key];
      Object.assign(obj, cloneJson(old));
      if (status === undefined) delete obj['status'];
      else obj['status'] = status;
    },
    validate,
  };
}
