// Everything kube checks in one version's openAPIV3Schema when a CRD is written: the structural
// rules, the extensions, patterns, and defaults that are pruned and valid. On an update, rules the
// stored CRD already broke are not tightened on it.
import type { SchemaValidator } from '../validation/options.js';
import type { CustomResourceDefinition, JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { forbidden } from '../../apimachinery/field-errors.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { call } from '../../apimachinery/structured-merge/trampoline.js';
import { compileSchemaRulesTask, type PreexistingExpressions, ruleFieldErrorsOf } from '../cel/compile.js';
import { validateDefault } from './default-check.js';
import { addSubSchemas, structuralOptionsForUpdate, validateStructuralSchema } from './structural.js';

/**
 * How deep schemas may nest (properties, items, additionalProperties, junctors...). kube has no such
 * limit: its walkers are Go recursion on growable stacks. Ours (structural checks, CEL types, the
 * OpenAPI documents, pruning and validation) recurse once per level on a fixed stack and were
 * measured to overflow between 2,000 and 2,300 levels; refusing deeper schemas at write keeps that
 * a 422 here instead of a 500 on every later request that meets the schema.
 */
const MAX_SCHEMA_NESTING = 1000;

/** Whether the schema nests deeper than MAX_SCHEMA_NESTING; counted without recursion. */
function nestsTooDeep(schema: JSONSchemaProps): boolean {
  const stack: JSONSchemaProps[] = [schema];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const s = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > MAX_SCHEMA_NESTING) return true;
    addSubSchemas(s, stack);
    while (depths.length < stack.length) depths.push(depth + 1);
  }
  return false;
}

const NONE_PREEXISTING: PreexistingExpressions = { rules: new Set(), messageExpressions: new Set() };
/** Each stored CRD's, found once for all its versions' schemas. */
const preexistingOf = new WeakMap<CustomResourceDefinition, PreexistingExpressions>();

/**
 * kube's findPreexistingExpressions: every rule and messageExpression of the stored CRD, in every
 * version's schema and every sub-schema (SchemaHas); none on create.
 */
function preexistingExpressions(old: CustomResourceDefinition | undefined): PreexistingExpressions {
  if (old === undefined) return NONE_PREEXISTING;
  let found = preexistingOf.get(old);
  if (found === undefined) preexistingOf.set(old, (found = findPreexisting(old)));
  return found;
}

function findPreexisting(old: CustomResourceDefinition): PreexistingExpressions {
  const rules = new Set<string>();
  const messageExpressions = new Set<string>();
  const stack = old.spec.versions.flatMap((v) => v.schema?.openAPIV3Schema ?? []);
  for (let s = stack.pop(); s !== undefined; s = stack.pop()) {
    for (const r of s['x-kubernetes-validations'] ?? []) {
      rules.add(r.rule);
      if (r.messageExpression) messageExpressions.add(r.messageExpression);
    }
    addSubSchemas(s, stack);
  }
  return { rules, messageExpressions };
}

export const checkSchemaAtCRDWrite: SchemaValidator = function* (schema, path, ctx) {
  if (nestsTooDeep(schema))
    return [forbidden(path, `must not nest schemas more than ${MAX_SCHEMA_NESTING} levels deep`)];
  const oldSchemas = ctx.old?.spec.versions.map((v) => v.schema?.openAPIV3Schema);
  const errs = validateStructuralSchema(schema, path, {
    ...(oldSchemas ? structuralOptionsForUpdate(oldSchemas) : {}),
    validateDefault,
  });
  // kube compiles no CEL then, but still checks every rule's own fields, junctors' too.
  if (errs.length > 0) return [...errs, ...ruleFieldErrorsOf(schema, path)];
  // CEL rules are compiled and type-checked against a structural schema only. On an update, a
  // version whose schema is unchanged is not refused again for a rule's cost (kube's
  // versionsWithUnchangedSchemas), so that a CRD a newer estimate would refuse stays updatable.
  const unchanged =
    ctx.old?.spec.versions.some((v) => v.name === ctx.version && deepEqual(v.schema?.openAPIV3Schema, schema)) ?? false;
  const preexisting = preexistingExpressions(ctx.old);
  return (yield* call(compileSchemaRulesTask(schema, path, { suppressPerExpressionCost: unchanged, preexisting })))
    .errors;
};
