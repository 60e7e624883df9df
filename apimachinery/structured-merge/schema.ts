// The type model structured merge walks values with: SMD's schema atoms, without named types
// (a node refers to its element types directly, so recursive types are object cycles).
//
// A node may carry several atoms at once (SMD's "deduced" type is scalar, list and map together);
// the value at hand picks which one applies.
import type { JSONSchemaProps } from '../apis/apiextensions.js';

/** Scalar kinds; `untyped` accepts any scalar. */
export type ScalarKind = 'numeric' | 'string' | 'boolean' | 'untyped';

/**
 * How a list's items relate: `atomic` (the list is one value, owned whole), `set` (associative
 * list of scalars, items identified by value) or `map` (associative list of maps, items identified
 * by their key fields).
 */
export type ListRelationship = 'atomic' | 'set' | 'map';

/** How a map's entries relate: `granular` (each field owned separately) or `atomic`. */
export type MapRelationship = 'granular' | 'atomic';

export interface ListType {
  elementType: TypeNode;
  relationship: ListRelationship;
  /** Key field names of a `map` list, in the order the schema lists them. */
  keys: readonly string[];
}

export interface StructField {
  type: TypeNode;
  /** The schema's default, used for a list-map item that omits a key field. */
  default?: unknown;
}

export interface MapType {
  /** Named fields (a struct's properties). */
  fields: ReadonlyMap<string, StructField>;
  /** Type of keys not in `fields`; undefined when no other keys are allowed. */
  elementType?: TypeNode;
  relationship: MapRelationship;
}

/**
 * A type: one or more of scalar, list and map. Nodes are built once and then treated as
 * immutable; element types may point back at an enclosing node.
 */
export interface TypeNode {
  scalar?: ScalarKind;
  list?: ListType;
  map?: MapType;
}

export function scalarType(kind: ScalarKind = 'untyped'): TypeNode {
  return { scalar: kind };
}

export function listType(
  elementType: TypeNode,
  relationship: ListRelationship = 'atomic',
  keys: readonly string[] = [],
): TypeNode {
  if (relationship === 'map' && keys.length === 0) throw new Error('a map list needs at least one key field');
  return { list: { elementType, relationship, keys: relationship === 'map' ? [...keys] : [] } };
}

export const atomicListType = (elementType: TypeNode): TypeNode => listType(elementType, 'atomic');
export const setListType = (elementType: TypeNode): TypeNode => listType(elementType, 'set');
export const mapListType = (elementType: TypeNode, keys: readonly string[]): TypeNode =>
  listType(elementType, 'map', keys);

/** A map whose keys are free and whose values all have `elementType` (additionalProperties). */
export function mapType(elementType: TypeNode, relationship: MapRelationship = 'granular'): TypeNode {
  return { map: { fields: new Map(), elementType, relationship } };
}

export interface StructOptions {
  /** Type of keys not listed in `fields`; by default no other keys are allowed. */
  elementType?: TypeNode;
  relationship?: MapRelationship;
}

/** A struct: named fields, each given as a type or as a field with a default. */
export function structType(fields: Record<string, TypeNode | StructField>, options: StructOptions = {}): TypeNode {
  const m = new Map<string, StructField>();
  for (const [name, f] of Object.entries(fields)) m.set(name, isStructField(f) ? f : { type: f });
  return { map: { fields: m, elementType: options.elementType, relationship: options.relationship ?? 'granular' } };
}

function isStructField(f: TypeNode | StructField): f is StructField {
  return 'type' in f;
}

/** The same type with its map relationship overridden (SMD's TypeRef.ElementRelationship). */
export function withMapRelationship(node: TypeNode, relationship: MapRelationship): TypeNode {
  if (!node.map) return node;
  return { ...node, map: { ...node.map, relationship } };
}

/** SMD's `__untyped_atomic_`: any value, owned as a whole. */
export const untypedAtomicType: TypeNode = (() => {
  const t: TypeNode = { scalar: 'untyped' };
  t.list = { elementType: t, relationship: 'atomic', keys: [] };
  t.map = { fields: new Map(), elementType: t, relationship: 'atomic' };
  return t;
})();

/**
 * SMD's `__untyped_deduced_`: the type of fields nobody described (objects without a schema,
 * x-kubernetes-preserve-unknown-fields). Maps are granular all the way down; lists are atomic.
 */
export const deducedType: TypeNode = (() => {
  const t: TypeNode = { scalar: 'untyped' };
  t.list = { elementType: untypedAtomicType, relationship: 'atomic', keys: [] };
  t.map = { fields: new Map(), elementType: t, relationship: 'granular' };
  return t;
})();

/** A map with no named fields whose other keys are deduced (reconciliation leaves these alone). */
export function isUntypedDeducedMap(m: MapType): boolean {
  const e = m.elementType;
  return (
    m.fields.size === 0 && e !== undefined && (e === deducedType || (e !== untypedAtomicType && e.scalar === 'untyped'))
  );
}

/** The type of a map entry: its named field's type, else the element type. */
export function fieldType(m: MapType, name: string): TypeNode | undefined {
  return m.fields.get(name)?.type ?? m.elementType;
}

// ---------------------------------------------------------------------------------------------
// Built-in parts every custom resource has, as kube's OpenAPI definitions describe them.

const stringType = (): TypeNode => scalarType('string');

/** metav1.Time and MicroTime: strings with a date-time format, which SMD types as untyped. */
const timeType = (): TypeNode => scalarType('untyped');

/** metav1.OwnerReference: an atomic struct (+structType=atomic). Key fields default to "". */
const ownerReferenceType: TypeNode = structType(
  {
    apiVersion: { type: stringType(), default: '' },
    blockOwnerDeletion: scalarType('boolean'),
    controller: scalarType('boolean'),
    kind: { type: stringType(), default: '' },
    name: { type: stringType(), default: '' },
    uid: { type: stringType(), default: '' },
  },
  { relationship: 'atomic' },
);

/** metav1.ManagedFieldsEntry; fieldsV1 is an object without properties, so deduced. */
const managedFieldsEntryType: TypeNode = structType({
  apiVersion: stringType(),
  fieldsType: stringType(),
  fieldsV1: mapType(deducedType),
  manager: stringType(),
  operation: stringType(),
  subresource: stringType(),
  time: timeType(),
});

/**
 * metav1.ObjectMeta as kube's OpenAPI describes it: labels and annotations granular maps,
 * finalizers a set (+listType=set), ownerReferences a list-map keyed by uid, managedFields atomic.
 */
export const objectMetaType: TypeNode = structType({
  annotations: mapType(stringType()),
  creationTimestamp: timeType(),
  deletionGracePeriodSeconds: scalarType('numeric'),
  deletionTimestamp: timeType(),
  finalizers: setListType(stringType()),
  generateName: stringType(),
  generation: scalarType('numeric'),
  labels: mapType(stringType()),
  managedFields: atomicListType(managedFieldsEntryType),
  name: stringType(),
  namespace: stringType(),
  ownerReferences: mapListType(ownerReferenceType, ['uid']),
  resourceVersion: stringType(),
  selfLink: stringType(),
  uid: stringType(),
});

/** apiVersion, kind and metadata: what kube adds to a CRD's root and to embedded resources. */
function kubeNativeFields(): Array<[string, StructField]> {
  return [
    ['apiVersion', { type: stringType() }],
    ['kind', { type: stringType() }],
    ['metadata', { type: objectMetaType }],
  ];
}

// ---------------------------------------------------------------------------------------------
// CRD schemas: kube-openapi's schemaconv (ToSchemaFromOpenAPI) over the OpenAPI kube builds for
// a CRD version (apiextensions' builder: metadata becomes ObjectMeta, apiVersion and kind are
// added, embedded resources get the same three fields).

export interface OpenAPIConversionOptions {
  /** The CRD's spec.preserveUnknownFields (v1beta1 only): unknown fields everywhere are deduced. */
  preserveUnknownFields?: boolean;
}

/**
 * The type of a custom resource whose version schema is `schema`, as kube's managed-fields type
 * converter sees it. Without a schema the whole object is deduced.
 */
export function fromOpenAPISchema(
  schema: JSONSchemaProps | undefined,
  options: OpenAPIConversionOptions = {},
): TypeNode {
  if (schema === undefined) return deducedType;
  const root = convertSchema(schema, options.preserveUnknownFields === true);
  const map: MapType = root.map ?? { fields: new Map(), relationship: 'granular' };
  const fields = new Map(map.fields);
  for (const [name, f] of kubeNativeFields()) fields.set(name, f);
  return { ...root, map: { ...map, fields } };
}

function convertSchema(s: JSONSchemaProps, inheritedPreserve: boolean): TypeNode {
  // x-kubernetes-preserve-unknown-fields opts the node and all its descendants in.
  const preserve = inheritedPreserve || s['x-kubernetes-preserve-unknown-fields'] === true;
  switch (s.type ?? '') {
    case '':
      // No type (x-kubernetes-int-or-string, or preserve-unknown-fields alone): any value.
      return { scalar: 'untyped', list: convertList(s, preserve), map: convertObject(s, preserve) };
    case 'object':
      return { map: convertObject(s, preserve) };
    case 'array':
      return { list: convertList(s, preserve) };
    case 'integer':
    case 'number':
      return scalarType('numeric');
    case 'boolean':
      return scalarType('boolean');
    case 'string':
      return scalarType(s.format === undefined || s.format === '' || s.format === 'byte' ? 'string' : 'untyped');
    default:
      return scalarType('untyped');
  }
}

function convertObject(s: JSONSchemaProps, preserve: boolean): MapType {
  const fields = new Map<string, StructField>();
  for (const [name, member] of Object.entries(s.properties ?? {})) {
    const field: StructField = { type: convertSchema(member, preserve) };
    if (member.default !== undefined) field.default = member.default;
    fields.set(name, field);
  }
  if (s['x-kubernetes-embedded-resource'] === true) for (const [name, f] of kubeNativeFields()) fields.set(name, f);

  let elementType: TypeNode | undefined;
  const additional = s.additionalProperties;
  if (additional === undefined) {
    // An object without properties is free-form; with properties (an embedded resource's added
    // ones count), unknown keys are not allowed.
    elementType = preserve || fields.size === 0 ? deducedType : undefined;
  } else if (typeof additional === 'object') {
    elementType = convertSchema(additional, preserve);
  } else {
    elementType = additional ? deducedType : undefined;
  }
  const relationship: MapRelationship = s['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'granular';
  return { fields, elementType, relationship };
}

function convertList(s: JSONSchemaProps, preserve: boolean): ListType {
  let elementType: TypeNode;
  if (s.items === undefined) elementType = untypedAtomicType;
  else if (Array.isArray(s.items)) elementType = deducedType;
  else elementType = convertSchema(s.items, preserve);

  switch (s['x-kubernetes-list-type']) {
    case 'set':
      return { elementType, relationship: 'set', keys: [] };
    case 'map': {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      if (keys.length === 0) throw new Error('x-kubernetes-list-type map needs x-kubernetes-list-map-keys');
      return { elementType, relationship: 'map', keys: [...keys] };
    }
    default:
      // Lists are atomic unless the schema says otherwise.
      return { elementType, relationship: 'atomic', keys: [] };
  }
}
