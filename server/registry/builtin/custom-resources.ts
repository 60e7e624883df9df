// The strategy of a custom resource, derived from its CRD: the version's schema prunes, defaults
// and validates what clients send, and prunes and defaults what is read from storage (so a default
// added to the CRD later appears on old objects). CEL plugs in beside validate; everything else is
// the generic store.
import {
  SPEC_GENERATION,
  STATUS_RESET,
  defineStrategy,
  keepStoredStatus,
  statusUpdate,
  withoutStatus,
} from '../base-strategy.js';
import { type KubeObject, cloneJson } from '../../../apimachinery/object.js';
import { prune } from '../../../crd/schema/prune.js';
import type { Strategy, UpdateStrategy, WriteContext } from '../strategy.js';
import type { FieldError } from '../../../apimachinery/field-errors.js';
import { compileSchemaRulesTask } from '../../../crd/cel/compile.js';
import { call, type Task } from '../../../apimachinery/structured-merge/trampoline.js';
import { type CompiledRules, rulesBlockedBy } from '../../../crd/cel/eval.js';
import { converterFor } from '../../../crd/conversion.js';
import { applyDefaults, pruneAndDefault, type PruneAndDefaultOptions } from '../../../crd/schema/default.js';
import { type CompiledSchema, compileSchema } from '../../../crd/schema/validate/compile-schema.js';
import type { CustomResourceDefinition, JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type TypeNode, fromOpenAPISchema } from '../../../apimachinery/structured-merge/schema.js';

export function customResourceStrategy(crd: CustomResourceDefinition): Strategy {
  const { group, names, scope } = crd.spec;
  const namespaced = scope === 'Namespaced';
  const storage = crd.spec.versions.find((v) => v.storage) ?? crd.spec.versions[0];
  const schemas = new Map<string, JSONSchemaProps>();
  for (const v of crd.spec.versions) if (v.schema?.openAPIV3Schema) schemas.set(v.name, v.schema.openAPIV3Schema);
  // Compiled on first use: most versions of most CRDs are never written to.
  const validators = new Map<string, CompiledSchema>();
  const validatorFor = (obj: KubeObject): CompiledSchema | undefined => {
    const version = versionOf(obj) ?? storage?.name ?? '';
    const schema = schemas.get(version);
    if (!schema) return undefined;
    let compiled = validators.get(version);
    if (!compiled) validators.set(version, (compiled = compileSchema(schema)));
    return compiled;
  };
  const preserveUnknownFields = (crd.spec as { preserveUnknownFields?: boolean }).preserveUnknownFields === true;
  const pruning: PruneAndDefaultOptions = {
    isResourceRoot: true,
    pruneRootMetadata: true,
    preserveUnknownFields,
  };
  const storageSchema = storage ? schemas.get(storage.name) : undefined;
  const converter = converterFor(crd);
  // CEL rules per version, compiled (and type-checked) when the CRD was written; cached by schema.
  const celRules = new Map<string, CompiledRules>();
  function* rulesFor(obj: KubeObject): Task<CompiledRules | undefined> {
    const version = versionOf(obj) ?? storage?.name ?? '';
    const schema = schemas.get(version);
    if (!schema) return undefined;
    let rules = celRules.get(version);
    // Planned here, a step each: the write about to run them runs them all in one step.
    if (!rules)
      celRules.set(version, (rules = (yield* call(compileSchemaRulesTask(schema, '', { plan: true }))).rules));
    return rules.empty ? undefined : rules;
  }
  /**
   * Schema errors first, then CEL's (as kube orders them); CEL warnings (ratcheting) to the request.
   * A status write checks the status against its own schema (kube's statusStrategy).
   */
  function* validateAll(
    obj: KubeObject,
    old: KubeObject | undefined,
    ctx: WriteContext,
    status = false,
  ): Task<FieldError[]> {
    const options = ctx.floatLiterals ? { floatLiterals: ctx.floatLiterals } : {};
    const validator = validatorFor(obj);
    const schemaErrors =
      (old
        ? status
          ? validator?.validateStatusUpdate(obj, old, options)
          : validator?.validateUpdate(obj, old, options)
        : validator?.validate(obj, options)) ?? [];
    const rules = yield* rulesFor(obj);
    if (!rules) return schemaErrors;
    const blocked = rulesBlockedBy(schemaErrors);
    if (blocked) return [...schemaErrors, blocked];
    const cel = rules.validate(obj, old ? validator?.correlate(obj, old, options) : undefined);
    for (const w of cel.warnings) ctx.warn?.(w);
    return [...schemaErrors, ...cel.errors];
  }

  // Field ownership types per version, built on first use.
  const types = new Map<string, TypeNode>();
  const fieldTypes = (apiVersion: string): TypeNode => {
    const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
    let type = types.get(version);
    if (!type) types.set(version, (type = fromOpenAPISchema(schemas.get(version), { preserveUnknownFields })));
    return type;
  };

  const hasStatus = Boolean(storage?.subresources?.status);
  const update: UpdateStrategy = {
    allowUnconditional: false,
    prepare: hasStatus ? keepStoredStatus : () => {},
    // Ratcheting: what was already invalid and is unchanged does not fail the update.
    validate: (obj, old, ctx) => validateAll(obj, old, ctx),
    resetFields: hasStatus ? STATUS_RESET : [],
  };

  return defineStrategy(
    {
      group,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      namespaced,
    },
    {
      generation: SPEC_GENERATION,
      // Unstructured: no Go type (and no struct tags to merge by: strategic merge is a 415).
      unstructured: { fieldTypes },
      exactIntegers: true,
      create: {
        prepare: hasStatus ? withoutStatus : () => {},
        validate: (obj, ctx) => validateAll(obj, undefined, ctx),
      },
      update,
      subresources: hasStatus
        ? { status: statusUpdate(update, (obj, old, ctx) => validateAll(obj, old, ctx, true)) }
        : {},
      canonicalize(obj, ctx) {
        const schema = schemas.get(versionOf(obj) ?? storage?.name ?? '');
        const unknown = schema ? pruneAndDefault(obj, schema, pruning) : [];
        ctx.onUnknownFields?.(unknown);
      },
      defaultPatched(obj) {
        applyDefaults(obj, schemas.get(versionOf(obj) ?? ''));
      },
      fromStorage(obj) {
        // Objects written before the storage version changed are read with their own version's schema.
        const schema = schemas.get(versionOf(obj) ?? '') ?? storageSchema;
        if (schema) pruneAndDefault(obj, schema, pruning);
      },
      ...(crd.spec.versions.length > 1 && storage
        ? {
            versions: {
              storageApiVersion: `${group}/${storage.name}`,
              async convert(objects: KubeObject[], apiVersion: string) {
                // Results may share structure with cached objects: prune copies.
                const converted = (await converter.convert(objects, apiVersion, { list: objects.length > 1 })).map(
                  (o) => cloneJson(o),
                );
                // As kube's schemaCoercingConverter: what the target version does not know goes.
                const schema = schemas.get(apiVersion.slice(apiVersion.indexOf('/') + 1));
                if (schema) for (const o of converted) prune(o, schema, { isResourceRoot: true });
                return converted;
              },
            },
          }
        : {}),
    },
  );
}

/** `v1` of `cache.example.com/v1`. */
function versionOf(obj: KubeObject): string | undefined {
  const apiVersion = obj.apiVersion;
  if (typeof apiVersion !== 'string') return undefined;
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}
