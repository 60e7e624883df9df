// A kind's definition in a document: a CRD's schema as kube's CRD builder publishes it (structural
// fields only, int-or-string unfolded; v2 converted as kube converts it), a built-in kind's
// compiled-in schema, and the list kind around either.
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type JsonObject, type JsonValue, isJsonObject } from '../../../apimachinery/object.js';
import {
  API_VERSION_DOC,
  COMPILED_IN,
  CONVENTIONS,
  KIND_DOC,
  LIST_META,
  LIST_METADATA_DOC,
  METADATA_DOC,
  OBJECT_META,
  type OpenAPIResource,
  type Refs,
  definitionName,
  gvkList,
  str,
} from './definitions.js';

/** Schemas arrive as parsed JSON, so their free-form values (default, enum) are JSON too. */
const asJson = (v: unknown): JsonValue => v as JsonValue;

const VALUE_KEYS = [
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
] as const;
/** Booleans Go omits when false. */
const TRUE_KEYS = [
  'nullable',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
] as const;
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;
const INT_OR_STRING: JsonObject[] = [{ type: 'integer' }, { type: 'string' }];

/**
 * A CRD schema as kube publishes it: the structural schema's fields only (example, $ref,
 * patternProperties and the like are dropped, as Structural.ToKubeOpenAPI does), with
 * x-kubernetes-int-or-string unfolded into its anyOf (Structural.Unfold). `nested` marks the
 * inside of allOf/anyOf/oneOf/not, which Unfold does not visit.
 */
function toKubeSchema(s: JSONSchemaProps, nested = false): JsonObject {
  const out: JsonObject = {};
  if (s.type) out['type'] = s.type;
  if (s.description) out['description'] = s.description;
  if (s.title) out['title'] = s.title;
  if (s.default !== undefined) out['default'] = asJson(s.default);
  if (s.externalDocs) out['externalDocs'] = asJson(s.externalDocs);
  for (const k of VALUE_KEYS) if (s[k] !== undefined && s[k] !== '') out[k] = s[k];
  for (const k of TRUE_KEYS) if (s[k] === true) out[k] = true;
  if (s.enum) out['enum'] = asJson(s.enum);
  if (s.required?.length) out['required'] = [...s.required];
  if (s.properties && Object.keys(s.properties).length) {
    out['properties'] = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, toKubeSchema(v, nested)]));
  }
  if (s.items && !Array.isArray(s.items)) out['items'] = toKubeSchema(s.items, nested);
  if (typeof s.additionalProperties === 'boolean') out['additionalProperties'] = s.additionalProperties;
  else if (s.additionalProperties) out['additionalProperties'] = toKubeSchema(s.additionalProperties, nested);
  for (const j of JUNCTORS) if (s[j]?.length) out[j] = s[j].map((x) => toKubeSchema(x, true));
  if (s.not) out['not'] = toKubeSchema(s.not, true);
  if (s['x-kubernetes-list-map-keys']?.length) out['x-kubernetes-list-map-keys'] = [...s['x-kubernetes-list-map-keys']];
  if (s['x-kubernetes-list-type']) out['x-kubernetes-list-type'] = s['x-kubernetes-list-type'];
  if (s['x-kubernetes-map-type']) out['x-kubernetes-map-type'] = s['x-kubernetes-map-type'];
  if (s['x-kubernetes-validations']?.length) out['x-kubernetes-validations'] = asJson(s['x-kubernetes-validations']);
  if (!nested) unfoldIntOrString(out);
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
 * kube's ToStructuralOpenAPIV2 (apiextensions openapi/v2/conversion.go), plus the default pruning
 * kube applies to served v2 definitions (kube-openapi handler.PruneDefaults). Parent first, as
 * kube's visitor: a parent looks at its children's `nullable` before they lose it. Mutates `s`.
 */
function toV2(s: JsonObject): void {
  for (const j of [...JUNCTORS, 'not']) delete s[j];
  if (s['nullable'] === true) {
    // untyped values break kubectl if items or properties are set
    delete s['type'];
    delete s['nullable'];
    delete s['items'];
    delete s['properties'];
  }
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (preserve) {
    delete s['items'];
    delete s['properties'];
  }
  // kubectl cannot cope with an array without item schema, nor with a preserving object type
  if (s['items'] === undefined && s['type'] === 'array') delete s['type'];
  if (preserve && s['type'] === 'object') delete s['type'];
  const props = s['properties'];
  const required = s['required'];
  if (isJsonObject(props) && Array.isArray(required)) {
    const kept = required.filter(
      (f) => !(typeof f === 'string' && isJsonObject(props[f]) && props[f]['nullable'] === true),
    );
    if (kept.length) s['required'] = kept;
    else delete s['required'];
  }
  const additional = s['additionalProperties'];
  if (isJsonObject(additional) && additional['nullable'] === true) delete s['required'];
  delete s['default'];

  if (isJsonObject(s['items'])) toV2(s['items']);
  if (isJsonObject(props)) for (const v of Object.values(props)) if (isJsonObject(v)) toV2(v);
  if (isJsonObject(additional)) toV2(additional);
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
  if (r.schema && COMPILED_IN.has(r.group)) {
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
  const s = toKubeSchema(source);
  if (refs.flavor === 'v2') toV2(s);
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
        items: refs.to(definitionName(r.group, r.version, r.names.kind)),
        description: `List of ${r.names.plural}. More info: ${CONVENTIONS}`,
      },
      metadata: refs.to(LIST_META, { description: LIST_METADATA_DOC }),
    },
    'x-kubernetes-group-version-kind': gvkList(r.group, r.version, r.names.listKind),
  };
}
