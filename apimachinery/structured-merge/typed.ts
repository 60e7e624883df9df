// Operations on a value of a known type (SMD's typed.TypedValue): the field set it sets, merging,
// comparing, removing and extracting fields, and validation. Each lives in its own file; this is
// the one place to import them from.
import { ValidationErrors } from './typed-helpers.js';
import type { TypeNode } from './schema.js';
import { validationErrors, type ValidateOptions } from './validate.js';

export { toFieldSet } from './to-field-set.js';
export { mergeValues as merge } from './merge-values.js';
export { compareTyped as compare, excludeFields, isSame, type Comparison } from './compare-values.js';
export { removeItems, extractItems, type ExtractOptions } from './remove-items.js';
export { reconcileFieldSetWithSchema } from './reconcile-schema.js';
export { validationErrors, type ValidateOptions } from './validate.js';
export { ValidationErrors, listItemToPathElement, type ValidationError } from './typed-helpers.js';

/** Throws ValidationErrors (SMD's messages) unless `value` fits `type`. */
export function validate(type: TypeNode, value: unknown, options: ValidateOptions = {}): void {
  const errs = validationErrors(type, value, options);
  if (errs.length > 0) throw new ValidationErrors(errs);
}
