// OpenAPI documents: /openapi/v3 (an index of group versions, each with a content hash),
// /openapi/v3/<gv> (one OpenAPI 3.0 document per group version) and /openapi/v2 (swagger 2.0 of
// everything). kubectl reads them for client-side validation, `explain` and apply. What we emit
// follows kube's CRD builder (apiextensions-apiserver pkg/controller/openapi/builder), its v2
// conversion (openapi/v2/conversion.go) and kube-openapi's builder3 and handlers.
//
// Documents are cached per group version and rebuilt only when that group version's resources
// change, so one CRD update does not rebuild every document (kube's known memory and CPU cost).
import { createHash } from 'node:crypto';
import type { JSONSchemaProps } from '../../../apimachinery/apis/apiextensions.js';
import { type ApiError, notAcceptable, notFoundPath } from '../../../apimachinery/errors.js';
import { type ResourceDescriptor, subresourceVerbs } from '../../registry/catalog.js';
import { type JsonObject, type JsonValue, isJsonObject } from '../../../apimachinery/object.js';
import { KUBE_VERSION } from '../../../apimachinery/kube-version.js';
import { parseJSON, stringifyJSON, stringifySortedJSON } from '../../../apimachinery/json.js';
import { encodeOpenAPIV2 } from '../../codecs/openapi-v2-protobuf.js';
import type { Document } from '../discovery.js';
import { negotiate } from '../negotiate.js';

/** What a document needs to know about a resource; the Catalog's descriptors are wider. */
export type OpenAPIResource = Pick<
  ResourceDescriptor,
  'group' | 'version' | 'names' | 'namespaced' | 'verbs' | 'subresources' | 'schema'
>;

/** The Catalog, as far as OpenAPI reads it. */
export interface OpenAPISource {
  readonly generation: number;
  all(): readonly OpenAPIResource[];
}

type Flavor = 'v2' | 'v3';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const OBJECT_META = `${META}.ObjectMeta`;
const LIST_META = `${META}.ListMeta`;
const TIME = `${META}.Time`;
const STATUS = `${META}.Status`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const PATCH = `${META}.Patch`;
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
const API_VERSION_DOC = `APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: ${CONVENTIONS}#resources`;
const KIND_DOC = `Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: ${CONVENTIONS}#types-kinds`;
const METADATA_DOC = `Standard object's metadata. More info: ${CONVENTIONS}#metadata`;
const LIST_METADATA_DOC = `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`;

/**
 * Groups compiled into kube-apiserver, with the Go package their definitions are named after.
 * Their kinds also accept strategic merge patch, which kube advertises on their PATCH operations.
 */
const COMPILED_IN = new Map([
  ['', 'io.k8s.api.core'],
  ['apiextensions.k8s.io', 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions'],
  ['coordination.k8s.io', 'io.k8s.api.coordination'],
  ['events.k8s.io', 'io.k8s.api.events'],
  ['rbac.authorization.k8s.io', 'io.k8s.api.rbac'],
  ['authorization.k8s.io', 'io.k8s.api.authorization'],
  ['authentication.k8s.io', 'io.k8s.api.authentication'],
  ['admissionregistration.k8s.io', 'io.k8s.api.admissionregistration'],
]);

/** kube's definition names: Go package for built-ins, reversed group for CRDs (`com.example.cache.v1.Cache`). */
export function definitionName(group: string, version: string, kind: string): string {
  return `${COMPILED_IN.get(group) ?? group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** The index key and URL segment of a group version: `api/v1`, `apis/<group>/<version>`. */
const groupVersionPath = (group: string, version: string): string =>
  group ? `apis/${group}/${version}` : `api/${version}`;

/** Records which definitions a document references, so exactly those get emitted. */
class Refs {
  readonly used = new Set<string>();
  /** Named definitions built-in kinds' schemas bring along (their `definitions`), by name. */
  readonly carried = new Map<string, JSONSchemaProps>();
  constructor(readonly flavor: Flavor) {}

  to(name: string, siblings: JsonObject = {}): JsonObject {
    this.used.add(name);
    if (this.flavor === 'v2') return { $ref: `#/definitions/${name}`, ...siblings };
    const ref = { $ref: `#/components/schemas/${name}` };
    // OpenAPI 3.0 ignores siblings of $ref, so kube (builder3 WrapRefs) moves the $ref into allOf.
    return Object.keys(siblings).length === 0 ? ref : { allOf: [ref], ...siblings };
  }
}

const str = (description: string): JsonObject => ({ type: 'string', description });
const int = (format: 'int32' | 'int64', description: string): JsonObject => ({ type: 'integer', format, description });
const bool = (description: string): JsonObject => ({ type: 'boolean', description });
const gvkList = (group: string, version: string, kind: string): JsonValue => [{ group, kind, version }];

/** The meta/v1 (and autoscaling/v1 Scale) definitions documents refer to; a faithful subset of kube's. */
const LIBRARY: Record<string, (r: Refs) => JsonObject> = {
  [OBJECT_META]: (r) => ({
    type: 'object',
    description:
      'ObjectMeta is metadata that all persisted resources must have, which includes all objects users must create.',
    properties: {
      annotations: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description:
          'Unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. Not queryable.',
      },
      creationTimestamp: r.to(TIME, { description: 'The time this object was created, set by the server. Read-only.' }),
      deletionGracePeriodSeconds: int(
        'int64',
        'Seconds allowed for this object to gracefully terminate before it is removed from the system. Read-only.',
      ),
      deletionTimestamp: r.to(TIME, {
        description:
          'The time after which this resource will be deleted, set by the server when a graceful deletion is requested. Read-only.',
      }),
      finalizers: {
        type: 'array',
        items: { type: 'string' },
        description: 'Must be empty before the object is deleted from the registry.',
        'x-kubernetes-list-type': 'set',
        'x-kubernetes-patch-strategy': 'merge',
      },
      generateName: str(
        'An optional prefix the server uses to generate a unique name, used only if name is not provided.',
      ),
      generation: int(
        'int64',
        'A sequence number representing a specific generation of the desired state. Populated by the system. Read-only.',
      ),
      labels: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description:
          'Map of string keys and values that can be used to organize and categorize (scope and select) objects.',
      },
      managedFields: {
        type: 'array',
        items: r.to(`${META}.ManagedFieldsEntry`),
        description: 'Maps workflow-id and version to the set of fields that are managed by that workflow.',
        'x-kubernetes-list-type': 'atomic',
      },
      name: str('Name must be unique within a namespace. Cannot be updated.'),
      namespace: str('The namespace this object is in; empty for cluster-scoped objects. Cannot be updated.'),
      ownerReferences: {
        type: 'array',
        items: r.to(`${META}.OwnerReference`),
        description:
          'List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected.',
        'x-kubernetes-list-map-keys': ['uid'],
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-patch-merge-key': 'uid',
        'x-kubernetes-patch-strategy': 'merge',
      },
      resourceVersion: str(
        'An opaque value that represents the internal version of this object, used for optimistic concurrency, change detection and watches. Read-only.',
      ),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
      uid: str(
        'UID is the unique in time and space value for this object, generated by the server on successful creation. Read-only.',
      ),
    },
  }),
  [`${META}.ManagedFieldsEntry`]: (r) => ({
    type: 'object',
    description:
      'ManagedFieldsEntry is a workflow-id, a FieldSet and the group version of the resource that the fieldset applies to.',
    properties: {
      apiVersion: str('The version of this resource that this field set applies to.'),
      fieldsType: str(
        'The discriminator for the different fields format and version. The only valid value is "FieldsV1".',
      ),
      fieldsV1: r.to(`${META}.FieldsV1`, { description: 'The first JSON version format of the field set.' }),
      manager: str('An identifier of the workflow managing these fields.'),
      operation: str('The type of operation which lead to this ManagedFieldsEntry being created: Apply or Update.'),
      subresource: str('The name of the subresource used to update that object, or empty for the main resource.'),
      time: r.to(TIME, { description: 'The timestamp of when the ManagedFields entry was added.' }),
    },
  }),
  [`${META}.FieldsV1`]: () => ({
    type: 'object',
    description: 'FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.',
  }),
  [`${META}.OwnerReference`]: () => ({
    type: 'object',
    description:
      'OwnerReference contains enough information to let you identify an owning object. An owning object must be in the same namespace as the dependent, or be cluster-scoped.',
    properties: {
      apiVersion: str('API version of the referent.'),
      blockOwnerDeletion: bool(
        'If true, and the owner has the "foregroundDeletion" finalizer, the owner cannot be deleted from the key-value store until this reference is removed.',
      ),
      controller: bool('If true, this reference points to the managing controller.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
    },
    required: ['apiVersion', 'kind', 'name', 'uid'],
    'x-kubernetes-map-type': 'atomic',
  }),
  [TIME]: () => ({
    type: 'string',
    format: 'date-time',
    description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON (RFC 3339).',
  }),
  [LIST_META]: () => ({
    type: 'object',
    description:
      'ListMeta describes metadata that synthetic resources must have, including lists and various status objects.',
    properties: {
      continue: str(
        'Set if the user set a limit on the number of items returned; the token to pass as continue to get the next page.',
      ),
      remainingItemCount: int(
        'int64',
        'The number of subsequent items in the list which are not included in this list response, when known.',
      ),
      resourceVersion: str('The version of the list, for watches and optimistic concurrency. Read-only.'),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated by the system.'),
    },
  }),
  [STATUS]: (r) => ({
    type: 'object',
    description: "Status is a return value for calls that don't return other objects.",
    properties: {
      apiVersion: str(API_VERSION_DOC),
      code: int('int32', 'Suggested HTTP return code for this status, 0 if not set.'),
      details: r.to(`${META}.StatusDetails`, {
        description: 'Extended data associated with the reason. Each reason may define its own extended details.',
      }),
      kind: str(KIND_DOC),
      message: str('A human-readable description of the status of this operation.'),
      metadata: r.to(LIST_META, { description: LIST_METADATA_DOC }),
      reason: str('A machine-readable description of why this operation is in the "Failure" status.'),
      status: str('Status of the operation. One of: "Success" or "Failure".'),
    },
    'x-kubernetes-group-version-kind': gvkList('', 'v1', 'Status'),
  }),
  [`${META}.StatusDetails`]: (r) => ({
    type: 'object',
    description:
      'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.',
    properties: {
      causes: {
        type: 'array',
        items: r.to(`${META}.StatusCause`),
        description: 'The Causes array includes more details associated with the StatusReason failure.',
        'x-kubernetes-list-type': 'atomic',
      },
      group: str('The group attribute of the resource associated with the status StatusReason.'),
      kind: str('The kind attribute of the resource associated with the status StatusReason.'),
      name: str(
        'The name attribute of the resource associated with the status StatusReason (when there is a single name which can be described).',
      ),
      retryAfterSeconds: int('int32', 'If specified, the time in seconds before the operation should be retried.'),
      uid: str('UID of the resource (when there is a single resource which can be described).'),
    },
  }),
  [`${META}.StatusCause`]: () => ({
    type: 'object',
    description:
      'StatusCause provides more information about an api.Status failure, including cases when multiple errors are encountered.',
    properties: {
      field: str('The field of the resource that has caused this error, as named by its JSON serialization.'),
      message: str('A human-readable description of the cause of the error.'),
      reason: str('A machine-readable description of the cause of the error.'),
    },
  }),
  [DELETE_OPTIONS]: (r) => ({
    type: 'object',
    description: 'DeleteOptions may be provided when deleting an API object.',
    properties: {
      apiVersion: str(API_VERSION_DOC),
      dryRun: {
        type: 'array',
        items: { type: 'string' },
        description: 'When present, indicates that modifications should not be persisted. The only valid value is All.',
        'x-kubernetes-list-type': 'atomic',
      },
      gracePeriodSeconds: int(
        'int64',
        'The duration in seconds before the object should be deleted; zero means delete immediately.',
      ),
      kind: str(KIND_DOC),
      orphanDependents: bool('Deprecated: use propagationPolicy. Whether the dependent objects should be orphaned.'),
      preconditions: r.to(`${META}.Preconditions`, {
        description: 'Must be fulfilled before a deletion is carried out.',
      }),
      propagationPolicy: str('Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
    },
    'x-kubernetes-group-version-kind': gvkList('', 'v1', 'DeleteOptions'),
  }),
  [`${META}.Preconditions`]: () => ({
    type: 'object',
    description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    properties: {
      resourceVersion: str('Specifies the target ResourceVersion.'),
      uid: str('Specifies the target UID.'),
    },
  }),
  [PATCH]: () => ({
    type: 'object',
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
  }),
  [SCALE]: (r) => ({
    type: 'object',
    description: 'Scale represents a scaling request for a resource.',
    properties: {
      apiVersion: str(API_VERSION_DOC),
      kind: str(KIND_DOC),
      metadata: r.to(OBJECT_META, { description: METADATA_DOC }),
      spec: r.to('io.k8s.api.autoscaling.v1.ScaleSpec', { description: 'Defines the behavior of the scale.' }),
      status: r.to('io.k8s.api.autoscaling.v1.ScaleStatus', {
        description: 'The current status of the scale. Read-only.',
      }),
    },
    'x-kubernetes-group-version-kind': gvkList('autoscaling', 'v1', 'Scale'),
  }),
  'io.k8s.api.autoscaling.v1.ScaleSpec': () => ({
    type: 'object',
    description: 'ScaleSpec describes the attributes of a scale subresource.',
    properties: { replicas: int('int32', 'The desired number of instances for the scaled object.') },
  }),
  'io.k8s.api.autoscaling.v1.ScaleStatus': () => ({
    type: 'object',
    description: 'ScaleStatus represents the current status of a scale subresource.',
    properties: {
      replicas: int('int32', 'The actual number of observed instances of the scaled object.'),
      selector: str(
        'Label query over pods that should match the replicas count, in the serialized form of a label selector.',
      ),
    },
    required: ['replicas'],
  }),
};

// ---- schemas ---------------------------------------------------------------------------------

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
function builtinSchema(s: JSONSchemaProps, refs: Refs): JsonObject {
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
function kindSchema(r: OpenAPIResource, refs: Refs): JsonObject {
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

function listSchema(r: OpenAPIResource, refs: Refs): JsonObject {
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

// ---- paths -----------------------------------------------------------------------------------

type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface Param {
  name: string;
  in: 'path' | 'query';
  type: 'string' | 'integer' | 'boolean';
  description: string;
}

interface Route {
  path: string;
  method: Method;
  action: Action;
  /** kube's operation ID verb and the rest: `list` + `NamespacedCache`. */
  verb: string;
  rest: string;
  description: string;
  params: Param[];
  body?: { definition: string; required: boolean; consumes: string[] };
  /** Status code, description, definition name. */
  responses: Array<[number, string, string]>;
}

const q = (name: string, type: Param['type'], description: string): Param => ({ name, in: 'query', type, description });

const RESOURCE_VERSION_DOC =
  'resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset.';
const DRY_RUN = q(
  'dryRun',
  'string',
  'When present, indicates that modifications should not be persisted. The only valid value is All.',
);
const FIELD_MANAGER = q(
  'fieldManager',
  'string',
  'fieldManager is a name associated with the actor or entity that is making these changes.',
);
const FIELD_VALIDATION = q(
  'fieldValidation',
  'string',
  'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore, Warn (the default) or Strict.',
);

const LIST_OPTIONS = [
  q(
    'allowWatchBookmarks',
    'boolean',
    'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers may ignore it.',
  ),
  q(
    'continue',
    'string',
    'The continue token of a previous paged list: the server continues the list where it stopped.',
  ),
  q(
    'fieldSelector',
    'string',
    'A selector to restrict the list of returned objects by their fields. Defaults to everything.',
  ),
  q(
    'labelSelector',
    'string',
    'A selector to restrict the list of returned objects by their labels. Defaults to everything.',
  ),
  q(
    'limit',
    'integer',
    'The maximum number of responses to return for a list call; continue is set when more items exist.',
  ),
  q('resourceVersion', 'string', RESOURCE_VERSION_DOC),
  q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  q(
    'sendInitialEvents',
    'boolean',
    'With watch=true, the stream begins with synthetic ADDED events for the current state, then a BOOKMARK.',
  ),
  q('timeoutSeconds', 'integer', 'Timeout for the list/watch call, regardless of any activity or inactivity.'),
  q(
    'watch',
    'boolean',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
  ),
];

/** The query parameters of kube's option structs (metav1 GetOptions, ListOptions, ...) per action. */
const OPTIONS: Record<Action, Param[]> = {
  get: [q('resourceVersion', 'string', RESOURCE_VERSION_DOC)],
  list: LIST_OPTIONS,
  // kube's CRD builder gives deletecollection the ListOptions
  deletecollection: LIST_OPTIONS,
  post: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
  put: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
  patch: [
    DRY_RUN,
    FIELD_MANAGER,
    FIELD_VALIDATION,
    q(
      'force',
      'boolean',
      'Force re-acquires conflicting fields owned by other managers on Apply requests. Must be unset for non-apply patches.',
    ),
  ],
  delete: [
    DRY_RUN,
    q(
      'gracePeriodSeconds',
      'integer',
      'The duration in seconds before the object should be deleted; zero means delete immediately.',
    ),
    q(
      'ignoreStoreReadErrorWithClusterBreakingPotential',
      'boolean',
      'If true, delete an object whose stored data cannot be read (e.g. undecryptable). Unsafe.',
    ),
    q(
      'orphanDependents',
      'boolean',
      'Deprecated: use propagationPolicy. Whether the dependent objects should be orphaned.',
    ),
    q(
      'propagationPolicy',
      'string',
      'Whether and how garbage collection will be performed: Orphan, Background or Foreground.',
    ),
  ],
};

const PRETTY = q(
  'pretty',
  'string',
  "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
);
const JSON_YAML = ['application/json', 'application/yaml'];
const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

const title = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** kube's GetArticleForNoun: plurals get none. */
function article(noun: string): string {
  if (noun.endsWith('s') && !noun.endsWith('ss')) return ' ';
  return /^[aeiou]/i.test(noun) ? ' an ' : ' a ';
}

/** The routes kube's CRD builder registers for one resource (generateBuilder), limited to its verbs. */
function routesFor(r: OpenAPIResource): Route[] {
  const { kind } = r.names;
  const kindDef = definitionName(r.group, r.version, kind);
  const listDef = definitionName(r.group, r.version, r.names.listKind);
  const base = `/${groupVersionPath(r.group, r.version)}`;
  const ns = r.namespaced ? 'Namespaced' : '';
  // kubectl computes a strategic merge patch from the v3 schema when the PATCH operation offers
  // it, and warns on every apply when the schema has no fields (our built-ins are permissive), so
  // it is offered only with a real schema; kubectl then falls back to v2 quietly.
  const patchTypes =
    COMPILED_IN.has(r.group) && r.schema ? [...PATCH_TYPES, 'application/strategic-merge-patch+json'] : PATCH_TYPES;
  const routes: Route[] = [];

  const route = (
    root: string,
    sub: string | undefined,
    verb: string,
    action: Action,
    sample: string,
    body?: string,
  ): Route => {
    const path = `${root}${sub === undefined ? '' : sub ? `/{name}/${sub}` : '/{name}'}`;
    const method: Method = action === 'list' ? 'get' : action === 'deletecollection' ? 'delete' : action;
    const of = sub ? ` ${sub} of` : '';
    const description =
      verb === 'list'
        ? `list objects of kind ${kind}`
        : verb === 'create' || verb === 'delete'
          ? `${verb}${of}${article(kind)}${kind}`
          : verb === 'patch'
            ? `partially update${of} the specified ${kind}`
            : verb === 'deletecollection'
              ? `delete collection of${sub ? ` ${sub} of a` : ''} ${kind}`
              : `${verb}${of} the specified ${kind}`;
    const params: Param[] = [PRETTY, ...OPTIONS[action]];
    if (path.includes('{namespace}'))
      params.push({
        name: 'namespace',
        in: 'path',
        type: 'string',
        description: 'object name and auth scope, such as for teams and projects',
      });
    if (path.includes('{name}'))
      params.push({ name: 'name', in: 'path', type: 'string', description: `name of the ${kind}` });
    const responses: Route['responses'] = [[200, 'OK', sample]];
    if (action === 'post') responses.push([201, 'Created', sample], [202, 'Accepted', sample]);
    if (action === 'put') responses.push([201, 'Created', sample]);
    if (action === 'delete') responses.push([202, 'Accepted', sample]);
    const built: Route = {
      path,
      method,
      action,
      description,
      params,
      responses,
      verb: verb === 'deletecollection' ? 'delete' : verb,
      rest: `${verb === 'deletecollection' ? 'Collection' : ''}${ns}${kind}${title(sub ?? '')}`,
    };
    if (body)
      built.body = {
        definition: body,
        required: action !== 'delete',
        consumes: action === 'patch' ? patchTypes : JSON_YAML,
      };
    return built;
  };

  const has = (verb: string): boolean => r.verbs.includes(verb);
  let root = `${base}/${r.names.plural}`;
  if (r.namespaced && has('list'))
    routes.push({ ...route(root, undefined, 'list', 'list', listDef), rest: `${kind}ForAllNamespaces` });
  if (r.namespaced) root = `${base}/namespaces/{namespace}/${r.names.plural}`;
  if (has('list')) routes.push(route(root, undefined, 'list', 'list', listDef));
  if (has('create')) routes.push(route(root, undefined, 'create', 'post', kindDef, kindDef));
  if (has('deletecollection')) routes.push(route(root, undefined, 'deletecollection', 'deletecollection', STATUS));
  if (has('get')) routes.push(route(root, '', 'read', 'get', kindDef));
  if (has('update')) routes.push(route(root, '', 'replace', 'put', kindDef, kindDef));
  if (has('delete')) routes.push(route(root, '', 'delete', 'delete', STATUS, DELETE_OPTIONS));
  if (has('patch')) routes.push(route(root, '', 'patch', 'patch', kindDef, PATCH));
  for (const sub of r.subresources) {
    const sample = sub === 'scale' ? SCALE : kindDef;
    const verbs = subresourceVerbs(sub);
    if (verbs.includes('get')) routes.push(route(root, sub, 'read', 'get', sample));
    if (verbs.includes('update')) routes.push(route(root, sub, 'replace', 'put', sample, sample));
    if (verbs.includes('patch')) routes.push(route(root, sub, 'patch', 'patch', sample, PATCH));
  }
  return routes;
}

/** kube's ToValidOperationID: letters, `_` and non-leading digits, camel-cased at separators. */
function toValidOperationID(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  [...s].forEach((c, i) => {
    if (/\p{L}/u.test(c) || c === '_' || (i !== 0 && /\p{Nd}/u.test(c))) {
      out += capitalize ? c.toUpperCase() : c;
      capitalize = false;
    } else {
      capitalize = true;
    }
  });
  return out;
}

/** kube's GetOperationIDAndTags: `listCacheExampleComV1NamespacedCache`, tag `cacheExampleCom_v1`. */
function operationIdAndTag(route: Route, group: string, version: string): { id: string; tag: string } {
  const g = (group || 'core').replace(/\.k8s\.io$/, '');
  return {
    id:
      route.verb +
      toValidOperationID(g, true) +
      toValidOperationID(version, true) +
      toValidOperationID(route.rest, true),
    tag: `${toValidOperationID(g, false)}_${toValidOperationID(version, false)}`,
  };
}

const paramKey = (p: Param): string => `${p.in}\0${p.name}`;

function renderParam(p: Param, flavor: Flavor): JsonObject {
  const out: JsonObject =
    flavor === 'v2'
      ? { uniqueItems: true, type: p.type, description: p.description, name: p.name, in: p.in }
      : { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.in === 'path') out['required'] = true;
  return out;
}

/** Rendered parameters in kube's order (builder3 sortParameters): by name, then location. */
function sortRendered(params: JsonObject[]): JsonObject[] {
  const key = (p: JsonObject): string => `${String(p['name'])}\0${String(p['in'])}`;
  return params.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function renderOperation(
  route: Route,
  hoisted: Set<string>,
  gvk: JsonObject,
  refs: Refs,
  group: string,
  version: string,
): JsonObject {
  const { id, tag } = operationIdAndTag(route, group, version);
  const params = route.params.filter((p) => !hoisted.has(paramKey(p))).map((p) => renderParam(p, refs.flavor));
  const op: JsonObject = { description: route.description };
  const responses: JsonObject = {};
  for (const [code, description, definition] of route.responses) {
    responses[code] =
      refs.flavor === 'v2'
        ? { description, schema: refs.to(definition) }
        : { description, content: Object.fromEntries(JSON_YAML.map((ct) => [ct, { schema: refs.to(definition) }])) };
  }
  responses[401] = { description: 'Unauthorized' };
  const body = route.body;
  if (refs.flavor === 'v2') {
    op['consumes'] = body?.consumes ?? JSON_YAML;
    op['produces'] = JSON_YAML;
    op['schemes'] = ['https'];
    if (body)
      params.push({
        name: 'body',
        in: 'body',
        schema: refs.to(body.definition),
        ...(body.required ? { required: true } : {}),
      });
  } else if (body) {
    const content = Object.fromEntries(body.consumes.map((ct) => [ct, { schema: refs.to(body.definition) }]));
    op['requestBody'] = body.required ? { content, required: true } : { content };
  }
  op['tags'] = [tag];
  op['operationId'] = id;
  if (params.length) op['parameters'] = sortRendered(params);
  op['responses'] = responses;
  op['x-kubernetes-action'] = route.action;
  op['x-kubernetes-group-version-kind'] = gvk;
  return op;
}

interface Built {
  paths: JsonObject;
  schemas: JsonObject;
}

/** One group version's paths and definitions, in either flavor. */
function buildGroupVersion(resources: readonly OpenAPIResource[], flavor: Flavor): Built {
  const refs = new Refs(flavor);
  const paths: JsonObject = {};
  const schemas: JsonObject = {};
  for (const r of resources) {
    schemas[definitionName(r.group, r.version, r.names.kind)] = kindSchema(r, refs);
    // Resources that are only ever created (access reviews) have no list.
    if (r.names.listKind) schemas[definitionName(r.group, r.version, r.names.listKind)] = listSchema(r, refs);
    const gvk: JsonObject = { group: r.group, version: r.version, kind: r.names.kind };
    const byPath = new Map<string, Route[]>();
    for (const route of routesFor(r)) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    for (const [path, routes] of byPath) {
      // Parameters every operation has move to the path, as kube's builder3 does; but kubectl
      // 1.29+ looks for fieldValidation only among the PATCH operation's own parameters.
      const common = routes[0]!.params.filter(
        (p) =>
          p.name !== FIELD_VALIDATION.name && routes.every((x) => x.params.some((y) => paramKey(y) === paramKey(p))),
      );
      const hoisted = new Set(common.map(paramKey));
      const item: JsonObject = {};
      if (common.length) item['parameters'] = sortRendered(common.map((p) => renderParam(p, flavor)));
      for (const route of routes) item[route.method] = renderOperation(route, hoisted, gvk, refs, r.group, r.version);
      paths[path] = item;
    }
  }
  // A Set's iteration also visits names added while it runs: the definitions' own references.
  for (const name of refs.used) {
    if (Object.hasOwn(schemas, name)) continue;
    const build = LIBRARY[name];
    const carried = refs.carried.get(name);
    if (build) schemas[name] = build(refs);
    else if (carried) schemas[name] = builtinSchema(carried, refs);
  }
  return { paths, schemas };
}

// ---- documents and cache ---------------------------------------------------------------------

/** Go marshals maps with sorted keys; sorting ours keeps a document's bytes (and hash) stable. */
const stableStringify = (value: JsonValue): string => stringifySortedJSON(value);

/** kube's computeETag (kube-openapi handler3): uppercase hex SHA-512 of the served bytes. */
const hashOf = (body: string): string => createHash('sha512').update(body).digest('hex').toUpperCase();

function toDocument(value: JsonValue): Document & { hash: string } {
  const body = stableStringify(value);
  const hash = hashOf(body);
  return { body, etag: `"${hash}"`, hash };
}

const KUBE_GIT_VERSION = `v${KUBE_VERSION.major}.${KUBE_VERSION.minor}.${KUBE_VERSION.patch}`;

class GroupVersionEntry {
  private v3Doc?: Document & { hash: string };
  private v2Built?: Built;

  constructor(
    readonly path: string,
    readonly fingerprint: string,
    private readonly resources: readonly OpenAPIResource[],
  ) {}

  v3(): Document & { hash: string } {
    if (!this.v3Doc) {
      const { paths, schemas } = buildGroupVersion(this.resources, 'v3');
      // kube titles built-in group documents after the server and CRD ones after the CRD builder
      const builtin = this.resources.some((r) => COMPILED_IN.has(r.group));
      const info = builtin
        ? { title: 'Kubernetes', version: KUBE_GIT_VERSION }
        : { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };
      this.v3Doc = toDocument({ openapi: '3.0.0', info, paths, components: { schemas } });
    }
    return this.v3Doc;
  }

  v2(): Built {
    return (this.v2Built ??= buildGroupVersion(this.resources, 'v2'));
  }
}

export class OpenAPI {
  private seenGeneration = Number.NaN;
  private entries = new Map<string, GroupVersionEntry>();
  private index?: Document;
  private swagger?: Document;
  private swaggerProtobuf?: Buffer;
  /** Per descriptor object: the catalog replaces descriptors on change, never mutates them. */
  private readonly fingerprints = new WeakMap<OpenAPIResource, string>();

  constructor(private readonly source: OpenAPISource) {}

  /** The `/openapi/v3` index: every served group version with the hash of its document. */
  v3Index(): Document {
    this.sync();
    if (!this.index) {
      const paths: JsonObject = {};
      for (const [path, entry] of this.entries)
        paths[path] = { serverRelativeURL: serverRelativeURL(path, entry.v3().hash) };
      this.index = toDocument({ paths });
    }
    return this.index;
  }

  /** One group version's document (`api/v1`, `apis/<group>/<version>`), or undefined. */
  v3Group(groupVersionPath: string): Document | undefined {
    this.sync();
    return this.entries.get(groupVersionPath)?.v3();
  }

  /** The swagger 2.0 document of everything. */
  v2(): Document {
    this.sync();
    if (!this.swagger) {
      const paths: JsonObject = {};
      const definitions: JsonObject = {};
      for (const entry of this.entries.values()) {
        const built = entry.v2();
        Object.assign(paths, built.paths);
        Object.assign(definitions, built.schemas);
      }
      this.swagger = toDocument({
        swagger: '2.0',
        info: { title: 'Kubernetes', version: KUBE_GIT_VERSION },
        paths,
        definitions,
        securityDefinitions: {
          BearerToken: {
            description: 'Bearer Token authentication',
            type: 'apiKey',
            name: 'authorization',
            in: 'header',
          },
        },
        security: [{ BearerToken: [] }],
      });
    }
    return this.swagger;
  }

  /**
   * The swagger 2.0 document as gnostic's protobuf, built as kube builds it: from the JSON bytes
   * served (kube-openapi ToProtoBinary). Both forms share the JSON document's ETag, as in kube.
   */
  v2Protobuf(): { body: Buffer; etag: string } {
    const doc = this.v2();
    if (!this.swaggerProtobuf) this.swaggerProtobuf = encodeOpenAPIV2(parseJSON(doc.body) as JsonValue);
    return { body: this.swaggerProtobuf, etag: doc.etag };
  }

  /** Brings the entries up to date: only group versions whose resources changed get new ones. */
  private sync(): void {
    if (this.source.generation === this.seenGeneration) return;
    this.seenGeneration = this.source.generation;
    const grouped = new Map<string, OpenAPIResource[]>();
    for (const r of this.source.all()) {
      const path = groupVersionPath(r.group, r.version);
      grouped.set(path, [...(grouped.get(path) ?? []), r]);
    }
    const next = new Map<string, GroupVersionEntry>();
    let changed = grouped.size !== this.entries.size;
    for (const path of [...grouped.keys()].sort()) {
      const resources = grouped.get(path)!;
      const fingerprint = resources.map((r) => this.fingerprint(r)).join('\n');
      const old = this.entries.get(path);
      if (old?.fingerprint === fingerprint) {
        next.set(path, old);
      } else {
        next.set(path, new GroupVersionEntry(path, fingerprint, resources));
        changed = true;
      }
    }
    this.entries = next;
    if (changed) {
      this.index = undefined;
      this.swagger = undefined;
      this.swaggerProtobuf = undefined;
    }
  }

  private fingerprint(r: OpenAPIResource): string {
    let f = this.fingerprints.get(r);
    if (f === undefined) {
      // stringifyJSON: a schema's defaults and examples may nest deeper than JSON.stringify recurses.
      f = stringifyJSON([r.group, r.version, r.names, r.namespaced, r.verbs, r.subresources, r.schema ?? null]);
      this.fingerprints.set(r, f);
    }
    return f;
  }
}

/** As kube's constructServerRelativeURL: `/openapi/v3/apis/g/v?hash=...`. */
const serverRelativeURL = (path: string, hash: string): string => `/openapi/v3/${path}?hash=${hash}`;

// ---- HTTP ------------------------------------------------------------------------------------

export interface OpenAPIResponse {
  code: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

const JSON_TYPE = 'application/json';
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The deprecated spelling, which kubectl sends; kube answers with the current one. */
const V2_PROTOBUF_DEPRECATED = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

function statusResponse(err: ApiError): OpenAPIResponse {
  const body = JSON.stringify(err.status);
  return {
    code: err.code,
    headers: { 'Content-Type': JSON_TYPE, 'Content-Length': String(Buffer.byteLength(body)) },
    body,
  };
}

function ok(body: string, headers: Record<string, string>): OpenAPIResponse {
  return { code: 200, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, body };
}

/** Go's checkIfNoneMatch (net/http ServeContent): `*`, or any listed ETag equal to ours, weakly compared. */
export function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || strip(t) === strip(etag));
}

function v2Response(openapi: OpenAPI, accept: string | undefined, ifNoneMatch: string | undefined): OpenAPIResponse {
  const type = negotiate(accept, [JSON_TYPE, V2_PROTOBUF_DEPRECATED, V2_PROTOBUF]);
  if (type === undefined) {
    // kube answers an empty 406 here; we answer with a Status, as every other error.
    return statusResponse(notAcceptable([JSON_TYPE, V2_PROTOBUF]));
  }
  // kube-openapi's handler: one ETag (the quoted hash of the JSON document) for both forms,
  // `Vary: Accept`, and http.ServeContent's 304 for a matching If-None-Match.
  const doc = type === JSON_TYPE ? openapi.v2() : openapi.v2Protobuf();
  const headers = { 'Content-Type': type === JSON_TYPE ? JSON_TYPE : V2_PROTOBUF, ETag: doc.etag, Vary: 'Accept' };
  if (noneMatchHits(ifNoneMatch, doc.etag)) return { code: 304, headers: { ETag: doc.etag, Vary: 'Accept' }, body: '' };
  return { code: 200, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(doc.body)) }, body: doc.body };
}

function v3GroupResponse(
  openapi: OpenAPI,
  groupVersion: string,
  query: URLSearchParams,
  accept: string | undefined,
): OpenAPIResponse {
  const doc = openapi.v3Group(groupVersion);
  // kube's aggregator answers an empty 404 for a group version nobody serves
  if (!doc) return statusResponse(notFoundPath());
  // we have no protobuf encoding of v3 documents; kubectl only ever asks for JSON
  if (!negotiate(accept, [JSON_TYPE])) return statusResponse(notAcceptable([JSON_TYPE]));
  const hash = doc.etag.slice(1, -1);
  const headers: Record<string, string> = { 'Content-Type': JSON_TYPE, ETag: doc.etag, Vary: 'Accept' };
  const requested = query.get('hash');
  if (requested) {
    // kube (handler3): a stale hash is redirected to the current one, which is then immutable
    if (requested !== hash)
      return {
        code: 301,
        headers: { ...headers, Location: serverRelativeURL(groupVersion, hash), 'Content-Length': '0' },
        body: '',
      };
    const expires = new Date();
    expires.setUTCFullYear(expires.getUTCFullYear() + 1);
    headers['Cache-Control'] = 'public, immutable';
    headers['Expires'] = expires.toUTCString();
  }
  return ok(doc.body, headers);
}

/** The answer to a GET of an `/openapi/...` path (`path` without a trailing slash). */
export function openapiResponse(
  openapi: OpenAPI,
  path: string,
  query: URLSearchParams,
  accept: string | undefined,
  ifNoneMatch?: string,
): OpenAPIResponse {
  if (path === '/openapi/v2') return v2Response(openapi, accept, ifNoneMatch);
  if (path === '/openapi/v3') {
    const doc = openapi.v3Index();
    return ok(doc.body, { 'Content-Type': JSON_TYPE, ETag: doc.etag });
  }
  if (path.startsWith('/openapi/v3/'))
    return v3GroupResponse(openapi, path.slice('/openapi/v3/'.length), query, accept);
  return statusResponse(notFoundPath());
}
