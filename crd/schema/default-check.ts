// kube's defaulting.ValidateDefaults at CRD write: every default in a schema must survive pruning
// unchanged and be valid against the schema it sits in, with errors under `<path>.default`.
// (A default is checked against its own node's schema, as kube does, not the whole object.) The
// structural walk finds the defaults (validateStructuralSchema's validateDefault option).
import { child, type FieldError, invalid } from '../../apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { deepCopyJSON } from './default.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { prune } from './prune.js';
import { compileSchema } from './validate/compile-schema.js';

/** The errors of the default of the schema node at `path`. */
export function validateDefault(s: JSONSchemaProps, path: string): FieldError[] {
  const at = child(path, 'default');
  const pruned = deepCopyJSON(s.default);
  prune(pruned, s, { isResourceRoot: s['x-kubernetes-embedded-resource'] === true });
  if (!deepEqual(pruned, s.default)) return [invalid(at, s.default, 'must not have unknown fields')];
  return compileSchema(s).validate(s.default, { rootPath: at });
}
