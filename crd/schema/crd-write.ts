// Everything kube checks in one version's openAPIV3Schema when a CRD is written: the structural
// rules, the extensions, patterns, and defaults that are pruned and valid. On an update, rules the
// stored CRD already broke are not tightened on it.
import type { SchemaValidator } from '../validation.js';
import { compileSchemaRules } from '../cel/compile.js';
import { validateDefaults } from './default-check.js';
import { structuralOptionsForUpdate, validateStructuralSchema } from './structural.js';

export const checkSchemaAtCRDWrite: SchemaValidator = (schema, path, ctx) => {
  const oldSchemas = ctx.old?.spec.versions.map((v) => v.schema?.openAPIV3Schema);
  const errs = validateStructuralSchema(schema, path, { ...(oldSchemas ? structuralOptionsForUpdate(oldSchemas) : {}), validateDefaults });
  // CEL rules are compiled and type-checked against a structural schema only, after its errors.
  return errs.length > 0 ? errs : compileSchemaRules(schema, path).errors;
};
