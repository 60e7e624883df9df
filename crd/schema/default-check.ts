// kube's defaulting.ValidateDefaults at CRD write: every default in a schema must survive pruning
// unchanged and be valid against the schema it sits in, with errors under `<path>.default`.
// (A default is checked against its own node's schema, as kube does, not the whole object.)
import { child, type FieldError, invalid, key } from '../../apimachinery/field-errors.js';
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { deepCopyJSON } from './default.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { prune } from './prune.js';
import { compileSchema } from './validate/compile-schema.js';
import { appendAll } from '../../apimachinery/append.js';

/** Defaults under `metadata` of the resource root are refused elsewhere (structural checks). */
export function validateDefaults(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, path, true, errs);
  return errs;
}

function walk(s: JSONSchemaProps, path: string, isRoot: boolean, errs: FieldError[]): void {
  if (s.default !== undefined && s.default !== null) {
    const at = child(path, 'default');
    const pruned = deepCopyJSON(s.default);
    prune(pruned, s, { isResourceRoot: s['x-kubernetes-embedded-resource'] === true });
    if (!deepEqual(pruned, s.default)) errs.push(invalid(at, s.default, 'must not have unknown fields'));
    else appendAll(errs, compileSchema(s).validate(s.default, { rootPath: at }));
  }
  // Defaults are forbidden under additionalProperties, so only items and properties are walked.
  if (s.items && !Array.isArray(s.items)) walk(s.items, child(path, 'items'), false, errs);
  const properties = s.properties;
  if (properties === undefined || properties === null) return;
  const propertiesPath = child(path, 'properties');
  for (const name of Object.keys(properties)) {
    if (isRoot && name === 'metadata') continue;
    walk(properties[name]!, key(propertiesPath, name), false, errs);
  }
}
