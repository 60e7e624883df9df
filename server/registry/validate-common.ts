// The ObjectMeta rules the store applies to every kind, whatever its strategy (kube's
// rest.BeforeCreate / BeforeUpdate with validateCommonFields).
import { type FieldError, formatFieldError } from '../../apimachinery/field-errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { KindInfo } from './strategy.js';
import { validateObjectMetaTask, validateObjectMetaUpdateTask } from '../../apimachinery/validation/object-meta.js';
import type { Task } from '../../apimachinery/structured-merge/index.js';
import { type NameValidator, validatePathSegmentName } from '../../apimachinery/validation/names.js';

export function validateObjectMetaForCreate(
  obj: KubeObject,
  kind: KindInfo,
  validateName: NameValidator,
): Task<FieldError[]> {
  return validateObjectMetaTask(obj.metadata, { namespaced: kind.namespaced, validateName });
}

/**
 * On update kube runs the generic ObjectMeta checks (names as path segments, since the name is
 * immutable anyway) beside the update rules; both look at labels and annotations, and one error
 * is reported once.
 */
export function* validateObjectMetaForUpdate(obj: KubeObject, old: KubeObject, kind: KindInfo): Task<FieldError[]> {
  const all = [
    ...(yield* validateObjectMetaTask(obj.metadata, {
      namespaced: kind.namespaced,
      validateName: validatePathSegmentName,
    })),
    ...(yield* validateObjectMetaUpdateTask(obj.metadata, old.metadata)),
  ];
  const seen = new Set<string>();
  return all.filter((e) => {
    const text = formatFieldError(e);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}
