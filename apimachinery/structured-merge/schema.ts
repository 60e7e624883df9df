// The type model structured merge walks values with: SMD's schema atoms, without named types
// (a node refers to its element types directly, so recursive types are object cycles).
//
// A node may carry several atoms at once (SMD's "deduced" type is scalar, list and map together);
// the value at hand picks which one applies.
import type { JSONSchemaProps } from '../apis/apiextensions.js';
import { patchExtensions } from '../apis/patch-extensions.js';
import { META_DEFINITIONS, OBJECT_META } from '../apis/meta-schemas.js';

/** Scalar kinds; `untyped` accepts any scalar. */
export type ScalarKind = 'numeric' | 'string' | 'boolean' | 'untyped';

/**
 * How a list's items relate: `atomic` (the list is one value, owned whole), `set` (associative
 * list of scalars, items identified by value) or `map` (associative list of maps, items identified
 * by their key fields).
 */
export type ListRelationship = 'atomic' | 'set' | 'map';

/** How a map's entries relate: `granular` (each field owned separately) or `atomic`. */
type MapRelationship = 'granular' | 'atomic';

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

function listType(
  elementType: TypeNode,
  relationship: ListRelationship = 'atomic',
  keys: readonly string[] = [],
): TypeNode {
  if (relationship === 'map' && keys.length === 0) throw new Error('a map list needs at least one key field');
  return { list: { elementType, relationship, keys: relationship === 'map' ? [...keys] : [] } };
}

export const setListType = (elementType: TypeNode): TypeNode => listType(elementType, 'set');
export const mapListType = (elementType: TypeNode, keys: readonly string[]): TypeNode =>
  listType(elementType, 'map', keys);

/** A map whose keys are free and whose values all have `elementType` (additionalProperties). */
export function mapType(elementType: TypeNode, relationship: MapRelationship = 'granular'): TypeNode {
  return { map: { fields: new Map(), elementType, relationship } };
}

interface StructOptions {
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
function withMapRelationship(node: TypeNode, relationship: MapRelationship): TypeNode {
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

// ---------------------------------------------------------------------------------------------
// OpenAPI schemas: kube-openapi's schemaconv (ToSchemaFromOpenAPI), as kube's managed-fields type
// converter runs it over the OpenAPI of a built-in kind (its named definitions, `$ref`s to them) or
// of a CRD version (apiextensions' builder: apiVersion, kind and metadata added at the root and to
// embedded resources).

interface OpenAPIConversionOptions {
  /** The CRD's spec.preserveUnknownFields (v1beta1 only): unknown fields everywhere are deduced. */
  preserveUnknownFields?: boolean;
}

/** One conversion: the named definitions `$ref`s resolve to, each converted once (recursive types are cycles). */
interface Conversion {
  readonly preserve: boolean;
  readonly definitions: Readonly<Record<string, JSONSchemaProps>>;
  readonly named: Map<string, TypeNode>;
  /** Work left until every named type is filled in: map relationships a `$ref` overrides. */
  readonly fixups: Array<() => void>;
}

const DEFINITION_PREFIX = '#/definitions/';

/** A named definition's type: converted on first use; a cycle meets the node being filled in. */
function namedType(c: Conversion, ref: string): TypeNode {
  const name = ref.startsWith(DEFINITION_PREFIX) ? ref.slice(DEFINITION_PREFIX.length) : ref;
  let node = c.named.get(name);
  if (node) return node;
  const def = c.definitions[name];
  if (!def) throw new Error(`no definition ${name} for $ref ${ref}`);
  node = {};
  c.named.set(name, node);
  // Named types take the conversion's own preserve flag, not an enclosing node's (as schemaconv).
  Object.assign(node, convertSchema(def, c, c.preserve));
  return node;
}

/** schemaconv's makeOpenAPIRef: a named type, with the map relationship the referring schema may override. */
function typeOf(s: JSONSchemaProps, c: Conversion, preserve: boolean): TypeNode {
  if (s.$ref === undefined) return convertSchema(s, c, preserve);
  const target = namedType(c, s.$ref);
  const relationship = s['x-kubernetes-map-type'];
  if (relationship === undefined) return target;
  // The target may still be being filled in (a cycle): the override is taken once it is complete.
  const overridden: TypeNode = {};
  c.fixups.push(() => Object.assign(overridden, withMapRelationship(target, relationship)));
  return overridden;
}

function convert(schema: JSONSchemaProps, options: OpenAPIConversionOptions): TypeNode {
  const preserve = options.preserveUnknownFields === true;
  const c: Conversion = {
    preserve,
    definitions: { ...META_DEFINITIONS, ...schema.definitions },
    named: new Map(),
    fixups: [],
  };
  const node = typeOf(schema, c, preserve);
  for (const fixup of c.fixups) fixup();
  return node;
}

/** metav1.ObjectMeta as kube's OpenAPI describes it (meta-schemas.ts). */
export const objectMetaType: TypeNode = convert({ $ref: DEFINITION_PREFIX + OBJECT_META }, {});

/** apiVersion, kind and metadata: what kube adds to a CRD's root and to embedded resources. */
function kubeNativeFields(): Array<[string, StructField]> {
  return [
    ['apiVersion', { type: scalarType('string') }],
    ['kind', { type: scalarType('string') }],
    ['metadata', { type: objectMetaType }],
  ];
}

/**
 * The type of a kind whose OpenAPI schema is `schema`, as kube's managed-fields type converter sees
 * it: a built-in kind's published definition (with the `definitions` it refers to) or a custom
 * resource's version schema. The root gets apiVersion, kind and ObjectMeta. Without a schema the
 * whole object is deduced.
 */
export function fromOpenAPISchema(
  schema: JSONSchemaProps | undefined,
  options: OpenAPIConversionOptions = {},
): TypeNode {
  if (schema === undefined) return deducedType;
  const root = convert(schema, options);
  const map: MapType = root.map ?? { fields: new Map(), relationship: 'granular' };
  const fields = new Map(map.fields);
  for (const [name, f] of kubeNativeFields()) fields.set(name, f);
  return { ...root, map: { ...map, fields } };
}

function convertSchema(s: JSONSchemaProps, c: Conversion, inheritedPreserve: boolean): TypeNode {
  // x-kubernetes-preserve-unknown-fields opts the node and all its descendants in.
  const preserve = inheritedPreserve || s['x-kubernetes-preserve-unknown-fields'] === true;
  switch (s.type ?? '') {
    case '':
      // No type (x-kubernetes-int-or-string, preserve-unknown-fields alone, a free-form value): any value.
      return { scalar: 'untyped', list: convertList(s, c, preserve), map: convertObject(s, c, preserve) };
    case 'object':
      return { map: convertObject(s, c, preserve) };
    case 'array':
      return { list: convertList(s, c, preserve) };
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

function convertObject(s: JSONSchemaProps, c: Conversion, preserve: boolean): MapType {
  const fields = new Map<string, StructField>();
  for (const [name, member] of Object.entries(s.properties ?? {})) {
    const field: StructField = { type: typeOf(member, c, preserve) };
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
    elementType = typeOf(additional, c, preserve);
  } else {
    elementType = additional ? deducedType : undefined;
  }
  const relationship: MapRelationship = s['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'granular';
  return { fields, elementType, relationship };
}

function convertList(s: JSONSchemaProps, c: Conversion, preserve: boolean): ListType {
  let elementType: TypeNode;
  if (s.items === undefined) elementType = untypedAtomicType;
  else if (Array.isArray(s.items)) elementType = deducedType;
  else elementType = typeOf(s.items, c, preserve);
  const { relationship, keys } = listRelationship(s);
  return { elementType, relationship, keys };
}

/**
 * schemaconv's getListElementRelationship: x-kubernetes-list-type, else a list patched by merge
 * (x-kubernetes-patch-strategy) is associative, keyed by its merge key or a set without one; else atomic.
 */
function listRelationship(s: JSONSchemaProps): { relationship: ListRelationship; keys: string[] } {
  switch (s['x-kubernetes-list-type']) {
    case 'atomic':
      return { relationship: 'atomic', keys: [] };
    case 'set':
      return { relationship: 'set', keys: [] };
    case 'map': {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      if (keys.length === 0) throw new Error('x-kubernetes-list-type map needs x-kubernetes-list-map-keys');
      return { relationship: 'map', keys: [...keys] };
    }
    case undefined:
      break;
    default:
      throw new Error(`unknown list type ${String(s['x-kubernetes-list-type'])}`);
  }
  const { 'x-kubernetes-patch-strategy': strategy, 'x-kubernetes-patch-merge-key': key } = patchExtensions(s);
  if (strategy === 'merge' || strategy === 'merge,retainKeys')
    return key === undefined ? { relationship: 'set', keys: [] } : { relationship: 'map', keys: [key] };
  // Lists are atomic unless the schema says otherwise.
  return { relationship: 'atomic', keys: [] };
}
