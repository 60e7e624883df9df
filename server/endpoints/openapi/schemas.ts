// A kind's definition in a document: a CRD's schema as kube's CRD builder publishes it (structural
// fields only, int-or-string unfolded; v2 converted as kube converts it), a built-in kind's
// compiled-in schema, and the list kind around either.
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type JsonObject, type JsonValue, isJsonObject } from '../../../apimachinery/object.js';
import {
  API_VERSION_DOC,
  CONVENTIONS,
  KIND_DOC,
  LIST_META,
  LIST_METADATA_DOC,
  METADATA_DOC,
  OBJECT_META,
  type Flavor,
  type OpenAPIResource,
  type Refs,
  definitionName,
  isCompiledIn,
  gvkList,
  str,
} from './definitions.js';

/** Schemas arrive as parsed JSON, so their free-form values (default, enum) are JSON too. */
const asJson = (v: unknown): JsonValue => v as JsonValue;

/** Keys kept when set: Go's pointers and strings, omitted when nil or empty. */
const VALUE_KEYS = new Set([
  'format',
  'maximum',
  'minimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
]);
/** Booleans Go omits when false. */
const TRUE_KEYS = new Set([
  'nullable',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
]);
/** Kept when set and not empty (Go's omitempty). */
const TRUTHY_KEYS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'externalDocs',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
]);
/** Lists kept, as copies, when not empty. */
const LIST_KEYS = new Set(['required', 'x-kubernetes-list-map-keys']);
const INT_OR_STRING: JsonObject[] = [{ type: 'integer' }, { type: 'string' }];

/**
 * A CRD schema as kube publishes it: the structural schema's fields only (example, $ref,
 * patternProperties and the like are dropped, as Structural.ToKubeOpenAPI does), with
 * x-kubernetes-int-or-string unfolded into its anyOf (Structural.Unfold); in v2, converted as
 * toV2 says. `nested` marks the inside of allOf/anyOf/oneOf/not, which Unfold does not visit.
 * Walks the keys the schema has, in its order (controller-gen writes them sorted, as the document
 * is written: an object built in order is serialized without a sorted copy).
 */
function toKubeSchema(s: JSONSchemaProps, flavor: Flavor, nested = false): JsonObject {
  const v2 = flavor === 'v2';
  const out: JsonObject = {};
  for (const k of Object.keys(s) as Array<keyof JSONSchemaProps & string>) {
    const v: unknown = s[k];
    if (VALUE_KEYS.has(k)) {
      if (v !== undefined && v !== '') out[k] = v as JsonValue;
    } else if (TRUE_KEYS.has(k)) {
      if (v === true) out[k] = true;
    } else if (TRUTHY_KEYS.has(k)) {
      if (v) out[k] = asJson(v);
    } else if (LIST_KEYS.has(k)) {
      if ((v as JsonValue[] | undefined)?.length) out[k] = [...(v as JsonValue[])];
    } else if (k === 'properties') {
      const props = s.properties;
      if (props && Object.keys(props).length) {
        const properties: JsonObject = {};
        for (const [name, sub] of Object.entries(props)) properties[name] = toKubeSchema(sub, flavor, nested);
        out[k] = properties;
      }
    } else if (k === 'items') {
      if (s.items && !Array.isArray(s.items)) out[k] = toKubeSchema(s.items, flavor, nested);
    } else if (k === 'additionalProperties') {
      const ap = s.additionalProperties;
      if (typeof ap === 'boolean') out[k] = ap;
      else if (ap) out[k] = toKubeSchema(ap, flavor, nested);
    } else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf') {
      // v2 has no junctors, and publishes no defaults
      const list = s[k];
      if (!v2 && list?.length) out[k] = list.map((x) => toKubeSchema(x, flavor, true));
    } else if (k === 'not') {
      if (!v2 && s.not) out[k] = toKubeSchema(s.not, flavor, true);
    } else if (k === 'default') {
      if (!v2 && v !== undefined) out[k] = asJson(v);
    } else if (k === 'x-kubernetes-validations') {
      if ((v as JsonValue[] | undefined)?.length) out[k] = asJson(v);
    }
  }
  if (v2) toV2(out, s);
  else if (!nested) unfoldIntOrString(out);
  return out;
}

const isIntOrStringAnyOf = (v: JsonValue | undefined): boolean =>
  Array.isArray(v) &&
  v.length === 2 &&
  isJsonObject(v[0]) &&
  v[0]['type'] === 'integer' &&
  isJsonObject(v[1]) &&
  v[1]['type'] === 'string';

function unfoldIntOrString(s: JsonObject): void {
  if (s['x-kubernetes-int-or-string'] !== true) return;
  const allOf = s['allOf'];
  if (
    isIntOrStringAnyOf(s['anyOf']) ||
    (Array.isArray(allOf) && isJsonObject(allOf[0]) && isIntOrStringAnyOf(allOf[0]['anyOf']))
  )
    return;
  if (s['anyOf'] === undefined) s['anyOf'] = INT_OR_STRING;
  else s['allOf'] = [{ anyOf: INT_OR_STRING }, ...(Array.isArray(allOf) ? allOf : [])];
}

/**
 * kube's ToStructuralOpenAPIV2 (apiextensions openapi/v2/conversion.go) of one node, whose
 * children are converted already (junctors and defaults were never copied: kube-openapi's
 * handler.PruneDefaults drops the latter from served v2 definitions). kube visits parents first:
 * what the parent reads of a child's `nullable`, it reads in the schema, before the child loses it.
 */
function toV2(out: JsonObject, s: JSONSchemaProps): void {
  if (out['nullable'] === true) {
    // untyped values break kubectl if items or properties are set
    delete out['type'];
    delete out['nullable'];
    delete out['items'];
    delete out['properties'];
  }
  const preserve = out['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve) {
    delete out['items'];
    delete out['properties'];
  }
  // kubectl cannot cope with an array without item schema, nor with a preserving object type
  if (out['items'] === undefined && out['type'] === 'array') delete out['type'];
  if (preserve && out['type'] === 'object') delete out['type'];
  const required = out['required'];
  if (isJsonObject(out['properties']) && Array.isArray(required)) {
    const nullable = (f: JsonValue): boolean => typeof f === 'string' && s.properties?.[f]?.nullable === true;
    if (required.some(nullable)) {
      const kept = required.filter((f) => !nullable(f));
      if (kept.length) out['required'] = kept;
      else delete out['required'];
    }
  }
  const ap = s.additionalProperties;
  if (isJsonObject(out['additionalProperties']) && typeof ap === 'object' && ap.nullable === true)
    delete out['required'];
}

function typeMetaProperties(): JsonObject {
  return { apiVersion: str(API_VERSION_DOC), kind: str(KIND_DOC) };
}

/** kube's addEmbeddedProperties: x-kubernetes-embedded-resource objects get apiVersion, kind, metadata. */
function addEmbeddedProperties(s: JsonObject, refs: Refs): void {
  const props = s['properties'];
  if (isJsonObject(props)) for (const v of Object.values(props)) if (isJsonObject(v)) addEmbeddedProperties(v, refs);
  if (isJsonObject(s['items'])) addEmbeddedProperties(s['items'], refs);
  if (isJsonObject(s['additionalProperties'])) addEmbeddedProperties(s['additionalProperties'], refs);

  // v2 leaves preserving objects bare: these properties would make kubectl reject unknown fields
  if (refs.flavor === 'v2' && s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (s['x-kubernetes-embedded-resource'] !== true) return;
  s['properties'] = {
    ...(isJsonObject(props) ? props : {}),
    apiVersion: str(
      `apiVersion defines the versioned schema of this representation of an object. More info: ${CONVENTIONS}#resources`,
    ),
    kind: str(
      `kind is a string value representing the type of this object. In CamelCase. More info: ${CONVENTIONS}#types-kinds`,
    ),
    metadata: refs.to(OBJECT_META, { description: METADATA_DOC }),
  };
  const required = Array.isArray(s['required']) ? s['required'] : [];
  for (const f of ['kind', 'apiVersion']) if (!required.includes(f)) required.push(f);
  s['required'] = required;
}

/** Built-in kinds we hold no schema for: permissive, so kubectl leaves validation to the server. */
const PERMISSIVE: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** Keys a built-in definition never carries into a document. */
const BUILTIN_DROPPED = new Set(['$ref', 'definitions']);

/**
 * A built-in kind's schema (or one of the definitions it carries) as kube's compiled-in OpenAPI
 * has it: `$ref`s to named definitions (wrapped in allOf by v3, as kube does), kube's patch
 * extensions kept. v2 leaves out defaults, as kube's served v2 does.
 */
export function builtinSchema(s: JSONSchemaProps, refs: Refs): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(s) as Array<[string, unknown]>) {
    if (v === undefined || BUILTIN_DROPPED.has(k) || (k === 'default' && refs.flavor === 'v2')) continue;
    if (k === 'properties' && isJsonObject(v as JsonValue)) {
      out[k] = Object.fromEntries(
        Object.entries(v as Record<string, JSONSchemaProps>).map(([name, p]) => [name, builtinSchema(p, refs)]),
      );
    } else if ((k === 'items' || k === 'additionalProperties') && isJsonObject(v as JsonValue)) {
      out[k] = builtinSchema(v as JSONSchemaProps, refs);
    } else {
      out[k] = asJson(v);
    }
  }
  return s.$ref ? refs.to(s.$ref.replace(/^#\/definitions\//, ''), out) : out;
}

/** The kind's definition, as kube's buildKubeNative makes it. */
export function kindSchema(r: OpenAPIResource, refs: Refs): JsonObject {
  const gvk = gvkList(r.group, r.version, r.names.kind);
  if (r.schema && isCompiledIn(r)) {
    // a compiled-in kind: kube's own definition, with the named definitions it refers to
    for (const [name, def] of Object.entries(r.schema.definitions ?? {}))
      if (!refs.carried.has(name)) refs.carried.set(name, def);
    const s = builtinSchema(r.schema, refs);
    const props = isJsonObject(s['properties']) ? s['properties'] : {};
    s['properties'] = {
      ...props,
      metadata: refs.to(OBJECT_META, { description: METADATA_DOC }),
      ...typeMetaProperties(),
    };
    s['x-kubernetes-group-version-kind'] = gvk;
    return s;
  }
  const source = r.schema ?? PERMISSIVE;
  if (refs.flavor === 'v2' && source['x-kubernetes-preserve-unknown-fields'] === true) {
    // kube: no properties at all, or kubectl's v2 validation would reject every other field
    return { type: 'object', 'x-kubernetes-group-version-kind': gvk };
  }
  const s = toKubeSchema(source, refs.flavor);
  const props = isJsonObject(s['properties']) ? s['properties'] : {};
  s['properties'] = {
    ...props,
    metadata: refs.to(OBJECT_META, { description: METADATA_DOC }),
    ...typeMetaProperties(),
  };
  addEmbeddedProperties(s, refs);
  s['x-kubernetes-group-version-kind'] = gvk;
  return s;
}

export function listSchema(r: OpenAPIResource, refs: Refs): JsonObject {
  return {
    type: 'object',
    description: `${r.names.listKind} is a list of ${r.names.kind}`,
    required: ['items'],
    properties: {
      ...typeMetaProperties(),
      items: {
        type: 'array',
        items: refs.to(definitionName(r, r.names.kind)),
        description: `List of ${r.names.plural}. More info: ${CONVENTIONS}`,
      },
      metadata: refs.to(LIST_META, { description: LIST_METADATA_DOC }),
    },
    'x-kubernetes-group-version-kind': gvkList(r.group, r.version, r.names.listKind),
  };
}
