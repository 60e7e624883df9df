// Structural defaulting of custom resources, as kube-apiserver does it
// (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go and prunenulls.go).
//
// Where kube runs it, and in which order (customresource_handler.go: schemaCoercingDecoder,
// unstructuredSchemaCoercer, unstructuredDefaulter inside the versioning codec; KEP-575):
//
//   create / update / patch (the body, in the version of the request URL):
//     1. decode JSON (strict mode collects `duplicate field "..."`);
//     2. prune: unknown fields dropped and collected (`unknown field "..."`), root and embedded
//        metadata cut to ObjectMeta;
//     3. drop non-nullable nulls that have no default (pruneNonNullableNullsWithoutDefaults);
//     4. default with the request version's schema (applyDefaults);
//        -> fieldValidation: Strict fails here with 400 BadRequest
//           `<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: <errs>`,
//           Warn adds one warning per error, Ignore drops them silently;
//     5. convert to the hub/storage version; every conversion result is pruned again with the
//        target version's schema (schemaCoercingConverter) — not defaulted;
//     6. mutating admission (a webhook's patched object is decoded again: steps 1-4 in the
//        webhook's version), then validation (schema, CEL, ObjectMeta), validating admission;
//     7. encode and write to storage.
//     So defaults are in place before validation and before admission, and validation sees a
//     pruned object.
//   read from storage (get, list, watch, and the old object of an update):
//     1. decode; 2. prune with the storage version's schema (invalid metadata dropped, not
//     failed; generation 0 repaired to 1); 3. drop non-nullable nulls without default;
//     4. default with the storage version's schema — so a default added to the CRD later shows
//     up on objects stored before it (defaults applied on read are not written back);
//     5. convert to the requested version (pruned again with that version's schema).
//
// pruneAndDefault() below is steps 2-4 of either path; the caller does the decoding, the
// conversion and the rest.
//
// Semantics (kube's Default): for an object, every property with a default that is absent — or
// present as null while the property is not nullable — gets a deep copy of the default; then every
// field is walked (properties by their schema, others by additionalProperties), so defaults apply
// inside defaults. additionalProperties values and array items that are null get the value
// schema's default when that schema is not nullable. A null on a nullable field stays null. A
// non-nullable null without a default was already removed by pruneNonNullableNullsWithoutDefaults
// (step 3): `{"a": null}` with `a: {type: string}` ends as `{}`. `default: null` counts as no
// default (kube's Default.Object == nil). Defaulting does not look at
// x-kubernetes-preserve-unknown-fields or embedded resources: only at the schema's properties,
// items and additionalProperties.
import type { JSONSchemaProps } from '../../apimachinery/apis/apiextensions.js';
import { cloneJson, isJsonObject, setOwn } from '../../apimachinery/object.js';
import {
  additionalSchema,
  hasDefault,
  holdsBelow,
  itemsSchema,
  propertySchema,
  prune,
  pruneEmbeddedObjectMeta,
  pruneObjectMeta,
  type PruneOptions,
} from './prune.js';
import { appendAll } from '../../apimachinery/append.js';

const defaultsBelow = new WeakMap<JSONSchemaProps, boolean>();

/** kube's isNonNullableNull: a null where the schema does not allow one. */
const isNonNullableNull = (v: unknown, s: JSONSchemaProps | undefined | null): boolean =>
  v === null && !!s && !s.nullable;

/** A deep copy of a JSON value (kube's runtime.DeepCopyJSONValue); defaults may nest deep, so no recursion. */
export const deepCopyJSON = cloneJson;

/** Applies the schema's defaults to `x` in place, as kube's structural defaulting. */
export function applyDefaults(x: unknown, schema: JSONSchemaProps | undefined): void {
  const s = schema;
  // Only the schemas below this one set defaults here.
  if (s === undefined || !holdsBelow(s, hasDefault, defaultsBelow)) return;
  if (isJsonObject(x)) {
    const props = s.properties;
    if (props !== undefined) {
      for (const k of Object.keys(props)) {
        const prop = props[k];
        if (!hasDefault(prop)) continue;
        if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) setOwn(x, k, deepCopyJSON(prop.default));
      }
    }
    const ap = additionalSchema(s);
    for (const k of Object.keys(x)) {
      const prop = propertySchema(s, k);
      if (prop !== undefined) applyDefaults(x[k], prop);
      else if (ap) {
        if (isNonNullableNull(x[k], ap) && hasDefault(ap)) setOwn(x, k, deepCopyJSON(ap.default));
        applyDefaults(x[k], ap);
      }
    }
  } else if (Array.isArray(x)) {
    const items = itemsSchema(s);
    if (items === undefined) return;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && hasDefault(items)) x[i] = deepCopyJSON(items.default);
      applyDefaults(x[i], items);
    }
  }
}

export interface PruneAndDefaultOptions extends PruneOptions {
  /**
   * The CRD's legacy `spec.preserveUnknownFields: true` (apiextensions v1beta1): kube then neither
   * prunes nor drops nulls, but still cuts metadata to ObjectMeta and defaults.
   */
  preserveUnknownFields?: boolean;
}

/**
 * Steps 2-4 of kube's decoding of a custom resource (see the module comment), in kube's order:
 * prune, drop non-nullable nulls without defaults, apply defaults. Use the request version's
 * schema for a request body and the storage version's schema for an object read from storage.
 * Returns the pruned paths for `unknown field "<path>"` (fieldValidation Strict/Warn).
 */
export function pruneAndDefault(obj: unknown, schema: JSONSchemaProps, opts: PruneAndDefaultOptions = {}): string[] {
  let unknown: string[];
  if (!opts.preserveUnknownFields) {
    unknown = prune(obj, schema, { ...opts, dropNulls: true });
  } else {
    unknown = [];
    if (opts.isResourceRoot && opts.pruneRootMetadata && isJsonObject(obj) && isJsonObject(obj['metadata'])) {
      appendAll(unknown, pruneObjectMeta(obj['metadata'], 'metadata'));
    }
    appendAll(unknown, pruneEmbeddedObjectMeta(obj, schema));
  }
  applyDefaults(obj, schema);
  return unknown;
}
