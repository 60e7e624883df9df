// The strategy of a custom resource, derived from its CRD: the version's schema prunes, defaults
// and validates what clients send, and prunes and defaults what is read from storage (so a default
// added to the CRD later appears on old objects). CEL plugs in beside validate; everything else is
// the generic store.
import { defineStrategy } from '../server/registry/base-strategy.js';
import { type KubeObject, cloneJson } from '../server/registry/object.js';
import { prune } from './schema/prune.js';
import type { Strategy } from '../server/registry/strategy.js';
import { pruneAndDefault, type PruneAndDefaultOptions } from './schema/default.js';
import { type CompiledSchema, compileSchema } from './schema/validate.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.js';

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
  const pruning: PruneAndDefaultOptions = {
    isResourceRoot: true,
    pruneRootMetadata: true,
    preserveUnknownFields: (crd.spec as { preserveUnknownFields?: boolean }).preserveUnknownFields === true,
  };
  const storageSchema = storage ? schemas.get(storage.name) : undefined;

  return defineStrategy(
    {
      group,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      namespaced,
    },
    {
      statusSubresource: Boolean(storage?.subresources?.status),
      allowUnconditionalUpdate: false,
      canonicalize(obj, ctx) {
        const schema = schemas.get(versionOf(obj) ?? storage?.name ?? '');
        const unknown = schema ? pruneAndDefault(obj, schema, pruning) : [];
        ctx.onUnknownFields?.(unknown);
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
                const converted = await convertNone(objects, apiVersion);
                // As kube's schemaCoercingConverter: what the target version does not know goes.
                const schema = schemas.get(apiVersion.slice(apiVersion.indexOf('/') + 1));
                if (schema) for (const o of converted) prune(o, schema, { isResourceRoot: true });
                return converted;
              },
            },
          }
        : {}),
      validate: (obj, ctx) => validatorFor(obj)?.validate(obj, ctx.floatLiterals ? { floatLiterals: ctx.floatLiterals } : {}) ?? [],
      // Ratcheting: what was already invalid and is unchanged does not fail the update.
      validateUpdate: (obj, old, ctx) => validatorFor(obj)?.validateUpdate(obj, old, ctx.floatLiterals ? { floatLiterals: ctx.floatLiterals } : {}) ?? [],
    },
  );
}

/** conversion.strategy None: only apiVersion changes (fresh copies: cached objects are shared). */
async function convertNone(objects: KubeObject[], apiVersion: string): Promise<KubeObject[]> {
  return objects.map((o) => ({ ...cloneJson(o), apiVersion }));
}

/** `v1` of `cache.example.com/v1`. */
function versionOf(obj: KubeObject): string | undefined {
  const apiVersion = obj.apiVersion;
  if (typeof apiVersion !== 'string') return undefined;
  return apiVersion.slice(apiVersion.indexOf('/') + 1);
}
