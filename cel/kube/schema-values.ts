// A JSON document validated by a structural schema as the CEL values kube's rules see
// (k8s.io/apiserver/pkg/cel/common/values.go UnstructuredToVal): numbers of a `number` schema
// are double even when integral, formatted strings timestamps, durations or bytes, objects
// maps read lazily by escaped field name (a null field of an object reads as absent), and
// lists with kube's own equality, membership and `+` by x-kubernetes-list-type (atomic in
// order; set and map whatever the order, `+` a union or a merge by key).
import { isJsonObject } from '../../apimachinery/object.js';
import { parseDuration, parseTimestamp } from '../time.js';
import {
  CelError,
  equals,
  type FieldSite,
  fromJson,
  type JsonValue,
  type ListTraits,
  MapValue,
  noSuchOverload,
  type MapKey,
  OWN_EQUALS,
  type OwnEquals,
  ownEquals,
  type Value,
  withListTraits,
} from '../values.js';
import { escapeFieldName } from './escaping.js';
import type { CelSchema } from './schema-types.js';
import { CEL_RESERVED_WORDS } from '../../apimachinery/cel-reserved.js';
import { additionalPropertiesOf, itemsOf, withTypeAndObjectMeta } from './sizes.js';

type JsonObject = { readonly [key: string]: JsonValue };

/**
 * kube's cel.Unescape: the property a CEL field name stands for, or undefined for a malformed
 * escape. A reserved word is its own property too, as `__namespace__` is.
 */
export function unescapeFieldName(escaped: string): string | undefined {
  // Most names have nothing escaped.
  if (!escaped.includes('__')) return escaped;
  let ok = true;
  const out = escaped.replace(/__[^_]+__/g, (s) => {
    const word = s.slice(2, -2);
    switch (word) {
      case 'underscores':
        return '__';
      case 'dot':
        return '.';
      case 'dash':
        return '-';
      case 'slash':
        return '/';
    }
    if (CEL_RESERVED_WORDS.has(word) && s.length === escaped.length) return word;
    ok = false;
    return '';
  });
  return ok ? out : undefined;
}

/**
 * The CEL value of a JSON document at a schema node. `isResourceRoot` for the root of a custom
 * resource, whose kind, apiVersion and metadata name and generateName are always visible.
 * Validation has run first, so data the schema refuses is not expected; what still does not
 * fit (a malformed date, a string where an int should be) is read as JSON without a schema.
 */
export function schemaValue(json: JsonValue, schema: CelSchema, isResourceRoot = false): Value {
  return toValue(json, isResourceRoot ? withTypeAndObjectMeta(schema) : schema);
}

/**
 * The value `parent` (made by `schemaValue` or these) holds for its property `prop`, when it
 * converted it with `childSchema`: the same value, with whatever of it a rule already read, so
 * that the rules of a write's nested nodes convert each part of the object once. Undefined where
 * the parent did not convert it so (a resource root's own metadata, a value the schema does not
 * describe): the caller converts it itself.
 */
export function convertedProperty(parent: Value, prop: string, childSchema: CelSchema): Value | undefined {
  return parent instanceof SchemaObject ? parent.converted(prop, childSchema) : undefined;
}

/** As convertedProperty, for the elements of a list `parent` of `parentSchema`: the list itself, where it converted each with `childSchema`. */
export function convertedElements(
  parent: Value,
  parentSchema: CelSchema,
  childSchema: CelSchema,
): readonly Value[] | undefined {
  // listValue converted every element with the items' schema.
  return Array.isArray(parent) &&
    parentSchema.type === 'array' &&
    parentSchema['x-kubernetes-int-or-string'] !== true &&
    itemsOf(parentSchema) === childSchema
    ? (parent as readonly Value[])
    : undefined;
}

function toValue(v: JsonValue, s: CelSchema): Value {
  // A null reaches CEL only where the schema is nullable (validation refuses it elsewhere).
  if (v === null) return null;
  if (s['x-kubernetes-int-or-string'] === true) return fromJson(v);
  switch (s.type) {
    case 'object':
      return isJsonObject(v) ? objectValue(v, s) : fromJson(v);
    case 'array':
      return Array.isArray(v) ? listValue(v as readonly JsonValue[], s) : fromJson(v);
    case 'string':
      return typeof v === 'string' ? stringValue(v, s.format) : fromJson(v);
    case 'number':
      // YAML turns 1.0 into 1: a number schema's integral values are still doubles.
      return typeof v === 'number' || typeof v === 'bigint' ? Number(v) : fromJson(v);
    default:
      // integer, boolean, and x-kubernetes-preserve-unknown-fields without a type (kube's
      // unknownPreserved, which only equality reaches): JSON as it is.
      return fromJson(v);
  }
}

function stringValue(v: string, format: string | undefined): Value {
  let out: Value | CelError;
  switch (format) {
    case 'byte':
      return new Uint8Array(Buffer.from(v, 'base64'));
    case 'duration':
      out = parseDuration(v);
      break;
    case 'date':
      out = parseTimestamp(`${v}T00:00:00Z`);
      break;
    case 'date-time':
      out = parseTimestamp(v);
      break;
    default:
      return v;
  }
  return out instanceof CelError ? v : out;
}

function objectValue(v: JsonObject, schema: CelSchema): Value {
  let fields = fieldsBySchema.get(schema);
  if (fields === undefined) fieldsBySchema.set(schema, (fields = fieldsOf(schema)));
  return new SchemaObject(v, fields);
}

/** How a schema's objects find their fields: made once per schema, as every write converts its objects. */
const fieldsBySchema = new WeakMap<CelSchema, Fields>();

function fieldsOf(schema: CelSchema): Fields {
  const s = schema['x-kubernetes-embedded-resource'] === true ? withTypeAndObjectMeta(schema) : schema;
  if (s.properties !== undefined || s['x-kubernetes-embedded-resource'] === true)
    return new ObjectFields(s.properties ?? {});
  const ap = additionalPropertiesOf(s);
  // An object with neither (preserve-unknown-fields, or nothing declared) shows no field.
  return new MapFields(ap);
}

/** A JSON property and its schema. */
interface Field {
  readonly prop: string;
  readonly schema: CelSchema;
  /** Its place in an object's converted values (an object's property; -1 for a map's entry, kept by key). */
  readonly slot: number;
  /**
   * The JSON kind read as it is, nothing converted or kept (a string without format, a boolean):
   * most fields rules read are these.
   */
  readonly plain: 'string' | 'boolean' | undefined;
}

function plainKind(s: CelSchema): Field['plain'] {
  if (s['x-kubernetes-int-or-string'] === true) return undefined;
  if (s.type === 'boolean') return 'boolean';
  return s.type === 'string' && s.format === undefined ? 'string' : undefined;
}

/** The fields of an object (by escaped name, `isObject`) or the entries of an additionalProperties map (keys as they are). */
interface Fields {
  readonly isObject: boolean;
  /** How many slots an object's converted values take. */
  readonly slots: number;
  /** The property a CEL name reads, where the schema describes it. */
  field(key: string): Field | undefined;
  /** The field that reads JSON property `prop`, where the schema describes it. */
  ofProp(prop: string): Field | undefined;
  /** A JSON property's schema, where the schema describes it. */
  schemaOf(prop: string): CelSchema | undefined;
}

class ObjectFields implements Fields {
  readonly isObject = true;
  /** The described properties by CEL name, found once each (unescaping is a scan). */
  private readonly byName = new Map<string, Field>();
  /** The described properties by JSON name, for convertedProperty. */
  private readonly byProp = new Map<string, Field>();
  /** Each property's slot: one per property, however many CEL names read it. */
  private readonly slotOf: ReadonlyMap<string, number>;

  constructor(private readonly props: { readonly [name: string]: CelSchema }) {
    this.slotOf = new Map(Object.keys(props).map((p, i) => [p, i]));
  }

  get slots(): number {
    return this.slotOf.size;
  }

  field(key: string): Field | undefined {
    const known = this.byName.get(key);
    if (known !== undefined) return known;
    const prop = unescapeFieldName(key);
    const schema = prop === undefined ? undefined : this.schemaOf(prop);
    if (prop === undefined || schema === undefined) return undefined;
    // Only described properties are kept, so the table is bounded by the schema.
    const f = { prop, schema, slot: this.slotOf.get(prop)!, plain: plainKind(schema) };
    this.byName.set(key, f);
    return f;
  }

  schemaOf(prop: string): CelSchema | undefined {
    return Object.hasOwn(this.props, prop) ? this.props[prop] : undefined;
  }

  ofProp(prop: string): Field | undefined {
    const known = this.byProp.get(prop);
    if (known !== undefined) return known;
    const name = escapeFieldName(prop);
    const f = name === undefined ? undefined : this.field(name);
    if (f === undefined || f.prop !== prop) return undefined;
    this.byProp.set(prop, f);
    return f;
  }
}

class MapFields implements Fields {
  readonly isObject = false;
  readonly slots = 0;
  private readonly plain: Field['plain'];

  constructor(private readonly values: CelSchema | undefined) {
    this.plain = values === undefined ? undefined : plainKind(values);
  }

  field(key: string): Field | undefined {
    return this.values === undefined ? undefined : { prop: key, schema: this.values, slot: -1, plain: this.plain };
  }

  schemaOf(): CelSchema | undefined {
    return this.values;
  }

  ofProp(prop: string): Field | undefined {
    return this.field(prop);
  }
}

function listValue(v: readonly JsonValue[], s: CelSchema): Value {
  const items = itemsOf(s);
  if (items === undefined) return fromJson(v);
  const out: Value[] = [];
  for (const x of v) out.push(toValue(x, items));
  return withListTraits(out, listTraitsOf(s));
}

/**
 * An object (fields by escaped name, `isObject`) or an additionalProperties map (keys as they
 * are) over its JSON, its fields converted when first read. size() counts every JSON key, as
 * kube's does, null and undescribed fields included.
 */
class SchemaObject extends MapValue implements OwnEquals {
  /** An object's converted properties by slot, made by the first read: many objects of a list are never read. */
  private slots: (Value | typeof ABSENT)[] | undefined;
  /** A map's converted entries by key, made by the first read. */
  private cache: Map<string, Value | typeof ABSENT> | undefined;

  constructor(
    readonly raw: JsonObject,
    private readonly fields: Fields,
  ) {
    super();
  }

  private get isObject(): boolean {
    return this.fields.isObject;
  }

  private propSchema(prop: string): CelSchema | undefined {
    return this.fields.schemaOf(prop);
  }

  /**
   * A key's value (by its CEL name), converted on first read and kept, absence too, which rules
   * test again and again; a plain field is its JSON, read each time.
   */
  private find(key: Value): Value | undefined {
    if (typeof key !== 'string') return undefined;
    const f = this.fields.field(key);
    return f === undefined ? undefined : this.read(f);
  }

  private read(f: Field): Value | undefined {
    if (f.plain !== undefined) {
      // Only own properties are strings or booleans (the prototype's are functions and objects).
      const v = this.raw[f.prop];
      if (typeof v === 'string') {
        if (f.plain === 'string') return v;
      } else if (typeof v === 'boolean' && f.plain === 'boolean') return v;
    }
    if (f.slot < 0) {
      // A map's entry: its key is its property.
      const cached = this.cache?.get(f.prop);
      if (cached !== undefined) return cached === ABSENT ? undefined : (cached as Value);
      const out = this.convert(f);
      (this.cache ??= new Map()).set(f.prop, out === undefined ? ABSENT : out);
      return out;
    }
    const slots = (this.slots ??= new Array<Value | typeof ABSENT>(this.fields.slots));
    const cached = slots[f.slot];
    if (cached !== undefined) return cached === ABSENT ? undefined : (cached as Value);
    const out = this.convert(f);
    slots[f.slot] = out === undefined ? ABSENT : out;
    return out;
  }

  private convert(f: Field): Value | undefined {
    if (!Object.hasOwn(this.raw, f.prop)) return undefined;
    const v = this.raw[f.prop]!;
    // An object's null field is an absent one (a map's null value is a value).
    if (this.isObject && v === null) return undefined;
    return toValue(v, f.schema);
  }

  /** The value of JSON property `prop`, when converted with `schema` (convertedProperty). */
  converted(prop: string, schema: CelSchema): Value | undefined {
    const f = this.fields.ofProp(prop);
    return f !== undefined && f.schema === schema ? this.read(f) : undefined;
  }

  override get size(): number {
    return Object.keys(this.raw).length;
  }

  override get(key: Value): Value | undefined {
    return this.find(key);
  }

  override has(key: Value): boolean {
    return typeof key === 'string' && this.present(this.fields.field(key));
  }

  override select(site: FieldSite): Value | undefined {
    const f = this.fieldAt(site);
    return f === undefined ? undefined : this.read(f);
  }

  override hasField(site: FieldSite): boolean {
    return this.present(this.fieldAt(site));
  }

  /** A site's field, found in this schema's table once for every object of the schema (the usual case) that reaches the site. */
  private fieldAt(site: FieldSite): Field | undefined {
    if (site.owner !== this.fields) {
      site.owner = this.fields;
      site.found = this.fields.field(site.name);
    }
    return site.found as Field | undefined;
  }

  /** As read, without converting: present when the JSON has it, and (an object's) not null. */
  private present(f: Field | undefined): boolean {
    if (f === undefined || !Object.hasOwn(this.raw, f.prop)) return false;
    return !this.isObject || this.raw[f.prop] !== null;
  }

  /** unstructuredMap.Find: a key that is no string is no such overload, for `[]` and `in` alike. */
  override lookup(key: Value): Value | CelError | undefined {
    return typeof key === 'string' ? this.find(key) : noSuchOverload();
  }

  override *keys(): IterableIterator<MapKey> {
    for (const k of Object.keys(this.raw))
      if (this.propSchema(k) !== undefined) yield this.isObject ? (escapeFieldName(k) ?? k) : k;
  }

  override *pairs(): IterableIterator<readonly [MapKey, Value]> {
    for (const k of this.keys()) {
      const v = this.find(k);
      if (v !== undefined) yield [k, v];
    }
  }

  /** kube's unstructuredMap is no Zeroer: ofNonZeroValue keeps even an empty one. */
  override isZeroValue(): boolean {
    return false;
  }

  override copy(): MapValue {
    const m = new MapValue();
    for (const [k, v] of this.pairs()) m.set(k, v);
    return m;
  }

  /**
   * unstructuredMap.Equal: as many keys, each described field equal to the other's (so a null
   * field, absent on both sides, makes them unequal, as in kube), and undescribed ones equal as
   * JSON where the other has them; against anything but a map, no such overload, and a field's
   * error is the answer.
   */
  [OWN_EQUALS](other: Value): boolean | CelError {
    if (!(other instanceof MapValue)) return noSuchOverload();
    if (this.size !== other.size) return false;
    for (const [k, v] of Object.entries(this.raw)) {
      const ps = this.propSchema(k);
      if (ps !== undefined) {
        const o = other.get(k);
        if (o === undefined) return false;
        const eq = ownEquals(toValue(v, ps), o);
        if (eq !== true) return eq;
      } else {
        if (!(other instanceof SchemaObject)) return noSuchOverload();
        if (Object.hasOwn(other.raw, k) && !jsonEqual(v, other.raw[k]!)) return false;
      }
    }
    return true;
  }
}

/** A key a SchemaObject does not have, kept in its cache as such. */
const ABSENT: unique symbol = Symbol('absent');

/** Scalars by identity, numbers across int and double as CEL's equality has them; undefined for the rest. */
function scalarKey(v: Value): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'boolean':
      return `b${v}`;
    case 'bigint':
      return `n${v}`;
    case 'number':
      if (Number.isNaN(v)) return undefined;
      return Number.isInteger(v) ? `n${BigInt(v)}` : `d${v}`;
    default:
      return undefined;
  }
}

/**
 * unstructuredList.Contains, every list type's: each element's own Equal against the value,
 * `true` a match; otherwise the first error, if any.
 */
function contains(list: readonly Value[], x: Value): boolean | CelError {
  let err: CelError | undefined;
  for (const y of list) {
    const eq = ownEquals(y, x);
    if (eq === true) return true;
    if (eq instanceof CelError) err ??= eq;
  }
  return err ?? false;
}

/**
 * x-kubernetes-list-type: atomic, or none (kube's unstructuredList): equal to a list of as many
 * elements, each by its own Equal in order, the first that is not `true` the answer; against
 * anything but a list, no such overload. `+` appends, keeping the list kube's.
 */
const ATOMIC: ListTraits = {
  equals(list, other) {
    if (!Array.isArray(other)) return noSuchOverload();
    if (other.length !== list.length) return false;
    for (let i = 0; i < list.length; i++) {
      const eq = ownEquals(list[i]!, (other as readonly Value[])[i]!);
      if (eq !== true) return eq;
    }
    return true;
  },
  contains,
  add: (list, other) => withListTraits([...list, ...other], ATOMIC),
};

/**
 * x-kubernetes-list-type: set. Equal to a list of as many elements each of which it holds, in
 * any order. `+` is a union: this list's elements where they are, then the other's it lacks.
 */
const SET: ListTraits = {
  equals(list, other) {
    if (!Array.isArray(other)) return noSuchOverload();
    if (other.length !== list.length) return false;
    const keys = new Set<string>();
    for (const x of list) {
      const k = scalarKey(x);
      if (k !== undefined) keys.add(k);
    }
    return (other as readonly Value[]).every((o) => {
      const k = scalarKey(o);
      return k !== undefined ? keys.has(k) : list.some((x) => equals(x, o) === true);
    });
  },
  contains,
  add(list, other) {
    const out = [...list];
    const keys = new Set<string>();
    for (const x of list) {
      const k = scalarKey(x);
      if (k !== undefined) keys.add(k);
    }
    for (const o of other) {
      const k = scalarKey(o);
      if (k !== undefined ? keys.has(k) : out.some((x) => equals(x, o) === true)) continue;
      if (k !== undefined) keys.add(k);
      out.push(o);
    }
    return withListTraits(out, SET);
  },
};

/**
 * x-kubernetes-list-type: map. Equal to a list of as many elements each matching, by its key
 * fields, an element of this one it equals. `+` is a merge: an element of the other whose key
 * this list has takes that element's place, the rest are appended. Kube reads the key fields
 * from each element's JSON under their escaped names, so only schema-typed elements have keys.
 */
function mapListTraits(keyProps: readonly string[]): ListTraits {
  const escaped = keyProps.map((p) => escapeFieldName(p) ?? p);
  const keyOf = (v: Value): string | undefined =>
    v instanceof SchemaObject ? escaped.map((p) => jsonKey(v.raw[p])).join('\u0000') : undefined;
  const traits: ListTraits = {
    equals(list, other) {
      if (!Array.isArray(other)) return noSuchOverload();
      if (other.length !== list.length) return false;
      const byKey = new Map<string, Value>();
      for (const x of list) {
        const k = keyOf(x);
        if (k !== undefined) byKey.set(k, x);
      }
      for (const o of other as readonly Value[]) {
        const k = keyOf(o);
        const mine = k === undefined ? undefined : byKey.get(k);
        if (mine === undefined) return false;
        const eq = ownEquals(mine, o);
        if (eq !== true) return eq;
      }
      return true;
    },
    contains,
    add(list, other) {
      const out = [...list];
      const at = new Map<string, number>();
      list.forEach((x, i) => {
        const k = keyOf(x);
        if (k !== undefined) at.set(k, i);
      });
      for (const o of other) {
        const k = keyOf(o);
        const i = k === undefined ? undefined : at.get(k);
        if (i === undefined) out.push(o);
        else out[i] = o;
      }
      return withListTraits(out, traits);
    },
  };
  return traits;
}

/** Each map list schema's traits, made once: its key names escaped. */
const mapListTraitsBySchema = new WeakMap<CelSchema, ListTraits>();

function listTraitsOf(s: CelSchema): ListTraits {
  switch (s['x-kubernetes-list-type']) {
    case 'set':
      return SET;
    case 'map': {
      let t = mapListTraitsBySchema.get(s);
      if (t === undefined) mapListTraitsBySchema.set(s, (t = mapListTraits(s['x-kubernetes-list-map-keys'] ?? [])));
      return t;
    }
    default:
      return ATOMIC;
  }
}

/** A scalar JSON value as a key: its JSON type and text (Go compares map keys by dynamic type and value). */
const jsonKey = (v: JsonValue | undefined): string => (v === undefined ? 'u' : `${typeof v}:${String(v)}`);

/** apimachinery's semantic DeepEqual on JSON: same types, same values, same keys. */
function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return (a as readonly JsonValue[]).every((x, i) => jsonEqual(x, (b as readonly JsonValue[])[i]!));
  }
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const ak = Object.keys(ao);
  return ak.length === Object.keys(bo).length && ak.every((k) => Object.hasOwn(bo, k) && jsonEqual(ao[k]!, bo[k]!));
}
