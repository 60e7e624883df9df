// Everything kube checks in one version's openAPIV3Schema when a CRD is written: the structural
// rules, the extensions, patterns, and defaults that are pruned and valid. On an update, rules the
// stored CRD already broke are not tightened on it.
import type { SchemaValidator } from '../validation.js';
import { validateDefaults } from './default-check.js';
import { structuralOptionsForUpdate, validateStructuralSchema } from './structural.js';

export const checkSchemaAtCRDWrite: SchemaValidator = (schema, path, ctx) => {
  const oldSchemas = ctx.old?.spec.versions.map((v) => v.schema?.openAPIV3Schema);
  return validateStructuralSchema(schema, path, { ...(oldSchemas ? structuralOptionsForUpdate(oldSchemas) : {}), validateDefaults });
};
