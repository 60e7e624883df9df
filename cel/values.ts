// CEL's runtime values as cel-go's common/types has them, in the representation the evaluator
// computes with: int is a bigint (always within int64), uint a Uint, double a number, string a
// JS string (CEL counts its code points), bytes a Uint8Array, list a JS array, map a MapValue,
// timestamps and durations exact to the nanosecond, types by name, optionals, and errors as
// values (CelError), which the logical operators may absorb.
import { INT64_MAX, INT64_MIN, UINT64_MAX } from '../apimachinery/int64.js';

/** A uint64: distinct from int at run time (`1u` is not `1`'s type), equal to it numerically. */
export class Uint {
  constructor(readonly value: bigint) {}
}

/** Nanoseconds since the Unix epoch, within cel-go's range (years 0001 to 9999). */
export class Timestamp {
  constructor(readonly nanos: bigint) {}
}

/** Nanoseconds, within Go's time.Duration (int64), which cel-go's durations are. */
export class Duration {
  constructor(readonly nanos: bigint) {}
}

/** A type as a value (`type(1) == int`), by cel-go's runtime type name. */
export class TypeValue {
  private static readonly byName = new Map<string, TypeValue>();
  private constructor(readonly name: string) {}
  static of(name: string): TypeValue {
    let t = TypeValue.byName.get(name);
    if (t === undefined) {
      t = new TypeValue(name);
      TypeValue.byName.set(name, t);
    }
    return t;
  }
}

export class OptionalValue {
  static readonly NONE = new OptionalValue(undefined);
  private constructor(readonly value: Value | undefined) {}
  static of(v: Value): OptionalValue {
    return new OptionalValue(v);
  }
  hasValue(): this is { value: Value } {
    return this.value !== undefined;
  }
}

/** An evaluation error as a value (cel-go's types.Err): it flows through calls until something absorbs it. */
export class CelError {
  constructor(readonly message: string) {}
}

export const noSuchOverload = (): CelError => new CelError('no such overload');

/**
 * A value of a type a library brings (kube's Quantity, IP, CIDR, URL, NamedFormat, Semver):
 * its CEL type name, its equality; cel-go's size of 1 for costs.
 */
export abstract class ObjectValue {
  abstract readonly typeName: string;
  /** Against a value of the same type name (kube's Equal; a value of another is no such overload). */
  abstract equals(other: ObjectValue): boolean | CelError;
}

export type MapKey = bigint | Uint | boolean | string;

/**
 * A map. Keys are int, uint, bool or string; int and uint keys of one value are one key, as
 * heterogeneous equality makes them (a double that is an integer finds them too).
 */
/**
 * One selection or presence test of a field in a program: a map that finds its fields in a table
 * (a schema's objects) keeps there what it found for the field, and for which table (`owner`), so
 * that the next evaluation finds it again without a lookup.
 */
export class FieldSite {
  owner: object | undefined = undefined;
  found: unknown = undefined;
  constructor(readonly name: string) {}
}

export class MapValue {
  /** Made by the first set: maps that compute their entries (a schema's objects) never need it. */
  private entries: Map<bigint | boolean | string, readonly [MapKey, Value]> | undefined;

  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** Sets a key; false when the key was already there (literals and cel.@mapInsert refuse that). */
  set(key: MapKey, value: Value): boolean {
    const k = normalKey(key)!;
    this.entries ??= new Map();
    const had = this.entries.has(k);
    this.entries.set(k, [key, value]);
    return !had;
  }

  /** The value of a key; undefined when absent, or when the value cannot be a key at all. */
  get(key: Value): Value | undefined {
    const k = normalKey(key);
    return k === undefined ? undefined : this.entries?.get(k)?.[1];
  }

  has(key: Value): boolean {
    const k = normalKey(key);
    return k !== undefined && (this.entries?.has(k) ?? false);
  }

  /**
   * What selecting or indexing a key gives: its value, undefined when absent. A map that computes
   * its values when first read (kube's lazy.MapValue: admission's `variables`) may give an error.
   */
  lookup(key: Value): Val | undefined {
    return this.get(key);
  }

  /** `lookup` of the field a selection names (`v.f`); a map that finds its fields in a table may remember where in `site`. */
  select(site: FieldSite): Val | undefined {
    return this.lookup(site.name);
  }

  /** `has` of the field a presence test names (`has(v.f)`), likewise. */
  hasField(site: FieldSite): boolean {
    return this.has(site.name);
  }

  keys(): IterableIterator<MapKey> {
    return mapIter(this.pairs(), (e) => e[0]);
  }

  pairs(): IterableIterator<readonly [MapKey, Value]> {
    return (this.entries ?? NO_ENTRIES).values();
  }

  copy(): MapValue {
    const m = new MapValue();
    for (const [k, v] of this.pairs()) m.set(k, v);
    return m;
  }

  /** cel-go's Zeroer (optional.ofNonZeroValue): an empty map is the zero map. */
  isZeroValue(): boolean {
    return this.size === 0;
  }
}

const NO_ENTRIES: ReadonlyMap<unknown, readonly [MapKey, Value]> = new Map();

function* mapIter<T, U>(it: Iterable<T>, f: (t: T) => U): IterableIterator<U> {
  for (const t of it) yield f(t);
}

/** A key's identity in a MapValue: numbers by value whatever their type; undefined for a value no key equals. */
function normalKey(k: Value): bigint | boolean | string | undefined {
  if (typeof k === 'string' || typeof k === 'boolean' || typeof k === 'bigint') return k;
  if (k instanceof Uint) return k.value;
  if (typeof k === 'number' && Number.isInteger(k)) return BigInt(k);
  return undefined;
}

export const isMapKey = (v: Value): v is MapKey =>
  typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint' || v instanceof Uint;

export type Value =
  | null
  | boolean
  | bigint
  | Uint
  | number
  | string
  | Uint8Array
  | readonly Value[]
  | MapValue
  | Timestamp
  | Duration
  | TypeValue
  | OptionalValue
  | ObjectValue;

/** What an expression evaluates to: a value or an error. */
export type Val = Value | CelError;

// ---------------------------------------------------------------------------------------------
// Types of values

const TYPE_NAMES = {
  null: 'null_type',
  bool: 'bool',
  int: 'int',
  uint: 'uint',
  double: 'double',
  string: 'string',
  bytes: 'bytes',
  list: 'list',
  map: 'map',
  timestamp: 'google.protobuf.Timestamp',
  duration: 'google.protobuf.Duration',
  type: 'type',
  optional: 'optional_type',
} as const;

/** The names that denote types as identifiers in the standard environment (cel-go's type identifiers). */
export const TYPE_IDENTIFIERS: ReadonlySet<string> = new Set(Object.values(TYPE_NAMES));

/** cel-go's runtime type name of a value. */
export function typeName(v: Value): string {
  switch (typeof v) {
    case 'boolean':
      return TYPE_NAMES.bool;
    case 'bigint':
      return TYPE_NAMES.int;
    case 'number':
      return TYPE_NAMES.double;
    case 'string':
      return TYPE_NAMES.string;
  }
  if (v === null) return TYPE_NAMES.null;
  if (v instanceof Uint) return TYPE_NAMES.uint;
  if (v instanceof Uint8Array) return TYPE_NAMES.bytes;
  if (Array.isArray(v)) return TYPE_NAMES.list;
  if (v instanceof MapValue) return TYPE_NAMES.map;
  if (v instanceof Timestamp) return TYPE_NAMES.timestamp;
  if (v instanceof Duration) return TYPE_NAMES.duration;
  if (v instanceof TypeValue) return TYPE_NAMES.type;
  if (v instanceof ObjectValue) return v.typeName;
  return TYPE_NAMES.optional;
}

// ---------------------------------------------------------------------------------------------
// Numbers

export const MIN_INT64 = INT64_MIN;
export const MAX_INT64 = INT64_MAX;
export const MAX_UINT64 = UINT64_MAX;

export const intOverflow = (): CelError => new CelError('integer overflow');
export const uintOverflow = (): CelError => new CelError('unsigned integer overflow');

/** An int result, or cel-go's overflow error outside int64. */
export const checkedInt = (v: bigint): bigint | CelError => (v < MIN_INT64 || v > MAX_INT64 ? intOverflow() : v);
export const checkedUint = (v: bigint): Uint | CelError => (v < 0n || v > MAX_UINT64 ? uintOverflow() : new Uint(v));

/**
 * The order of two numbers of any numeric types: -1, 0, 1, or undefined when either is NaN.
 * Integers compare exactly; an integer against a double as cel-go compares them: a double
 * beyond the integer type's range is above or below it, otherwise the integer is converted to
 * double (so 2^63 - 1 equals 2^63 as a double, as in cel-go).
 */
function compareNumbers(
  a: bigint | number,
  b: bigint | number,
  aUnsigned = false,
  bUnsigned = false,
): number | undefined {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'bigint') {
    const c = compareNumbers(b, a, bUnsigned, aUnsigned);
    return c === undefined ? undefined : -c;
  }
  const d = a as number;
  if (Number.isNaN(d)) return undefined;
  if (d < (bUnsigned ? 0 : -(2 ** 63))) return -1;
  if (d > (bUnsigned ? 2 ** 64 : 2 ** 63)) return 1;
  const i = Number(b);
  return d < i ? -1 : d > i ? 1 : 0;
}

/** A numeric value as a number or bigint, if it is one. */
function numeric(v: Value): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof Uint) return v.value;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Strings and bytes

/** Code-point order (Go compares UTF-8 bytes, which orders as code points; JS compares UTF-16 units). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (an astral code point) sorts above every BMP unit, U+E000..U+FFFF included.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

// ---------------------------------------------------------------------------------------------
// Equality and order

/**
 * A map that compares itself to others, as cel-go asks the left operand's own Equal: kube's
 * schema-typed objects and maps (fields the schema does not describe compare as raw JSON).
 * cel/kube/schema-values.ts makes them.
 */
export const OWN_EQUALS: unique symbol = Symbol('cel.ownEquals');
export interface OwnEquals {
  [OWN_EQUALS](other: Value): boolean | CelError;
}

/**
 * cel-go's list traits as a list of its own implements them (a custom ref.Val's Equal,
 * Contains and Add): kube's schema-typed lists, whose list type (atomic, set, map) decides all
 * three, and cel-go's concatenations. Held by the list as a property, so that such a list is
 * still a plain array to build and to read (a subclass of Array is several times slower to build).
 */
export const LIST_TRAITS: unique symbol = Symbol('cel.listTraits');
export interface ListTraits {
  equals(list: readonly Value[], other: Value): boolean | CelError;
  contains(list: readonly Value[], x: Value): boolean | CelError;
  add(list: readonly Value[], other: readonly Value[]): Value;
}
type TraitedList = readonly Value[] & { readonly [LIST_TRAITS]?: ListTraits };

/** The list traits a list brings, if it has its own. */
export const listTraits = (list: readonly Value[]): ListTraits | undefined => (list as TraitedList)[LIST_TRAITS];

/** Gives a list its own traits (once it is built: the property does not slow its elements). */
export function withListTraits(list: Value[], traits: ListTraits): readonly Value[] {
  (list as { [LIST_TRAITS]?: ListTraits })[LIST_TRAITS] = traits;
  return list;
}

/**
 * CEL's heterogeneous equality (cel-go types.Equal, what `==` and `!=` ask): null equals null
 * and nothing else; otherwise the left value's own Equal answers (`ownEquals`).
 */
export function equals(a: Value, b: Value): boolean | CelError {
  if (a === null || b === null) return a === b;
  return ownEquals(a, b);
}

/**
 * The left value's own Equal (cel-go's ref.Val Equal), which optionals ask of their values and
 * kube's lists of their elements: as `equals`, but a null on the right is the left value's to
 * judge, so one of kube's types refuses it. Values of different types are unequal, numbers
 * compare by value; one of kube's types on the left refuses a value of another type with no
 * such overload. A plain list's or map's comparison stops only at `false` (its elements' errors
 * do not count), as cel-go's baseList and baseMap do.
 */
export function ownEquals(a: Value, b: Value): boolean | CelError {
  if (a === b && typeof a !== 'object') return true;
  const na = numeric(a);
  if (na !== undefined) {
    const nb = numeric(b);
    return nb !== undefined && compareNumbers(na, nb, a instanceof Uint, b instanceof Uint) === 0;
  }
  if (a === null) return b === null;
  if (typeof a !== 'object') return false;
  if (OWN_EQUALS in a) return (a as OwnEquals)[OWN_EQUALS](b);
  if (a instanceof ObjectValue)
    return b instanceof ObjectValue && a.typeName === b.typeName ? a.equals(b) : noSuchOverload();
  if (Array.isArray(a)) {
    const traits = listTraits(a);
    if (traits !== undefined) return traits.equals(a, b);
  }
  if (a === b) return true;
  if (b === null || typeof b !== 'object') return false;
  if (Array.isArray(a))
    return (
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((x: Value, i) => equals(x, (b as readonly Value[])[i]!) !== false)
    );
  if (a instanceof MapValue) {
    if (!(b instanceof MapValue) || a.size !== b.size) return false;
    for (const [k, v] of a.pairs()) {
      const w = b.get(k);
      if (w === undefined || equals(v, w) === false) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (a instanceof Timestamp) return b instanceof Timestamp && a.nanos === b.nanos;
  if (a instanceof Duration) return b instanceof Duration && a.nanos === b.nanos;
  if (a instanceof OptionalValue) {
    if (!(b instanceof OptionalValue)) return false;
    return a.value === undefined || b.value === undefined ? a.value === b.value : ownEquals(a.value, b.value);
  }
  return false;
}

/**
 * cel-go's `in` on a list (its Contains): a plain list asks the element sought for its own Equal
 * against each element, `true` alone a match; one of kube's lists answers itself.
 */
export function listContains(list: readonly Value[], x: Value): boolean | CelError {
  const traits = listTraits(list);
  return traits !== undefined ? traits.contains(list, x) : list.some((y) => ownEquals(x, y) === true);
}

/**
 * cel-go's `+` on lists, the left list's Add: one of kube's lists adds its own way; otherwise
 * an empty side gives the other list itself, and two lists a concatenation (cel-go's concatList).
 */
export function addLists(a: readonly Value[], b: readonly Value[]): Value {
  const traits = listTraits(a);
  return traits !== undefined ? traits.add(a, b) : concatenate(a, b);
}

function concatenate(a: readonly Value[], b: readonly Value[]): Value {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return withListTraits([...a, ...b], concatenation(a, b));
}

/**
 * cel-go's concatList: unlike a list literal's, its Equal answers with an element's error when
 * no element is unequal, and its Contains asks each half, the first half's error winning.
 */
function concatenation(prev: readonly Value[], next: readonly Value[]): ListTraits {
  return {
    equals(list, other) {
      if (!Array.isArray(other) || other.length !== list.length) return false;
      let err: CelError | undefined;
      for (let i = 0; i < list.length; i++) {
        const eq = equals(list[i]!, (other as readonly Value[])[i]!);
        if (eq === false) return false;
        if (eq instanceof CelError) err ??= eq;
      }
      return err ?? true;
    },
    contains(_, x) {
      const p = listContains(prev, x);
      if (p === true) return p;
      const n = listContains(next, x);
      return n !== true && p instanceof CelError ? p : n;
    },
    add: concatenate,
  };
}

/**
 * The order of two values of one orderable type (numbers of any type among themselves):
 * -1, 0, 1; undefined when they do not compare (NaN, or types without an order between them).
 */
export function compare(a: Value, b: Value): number | undefined {
  const na = numeric(a);
  if (na !== undefined) {
    const nb = numeric(b);
    return nb === undefined ? undefined : compareNumbers(na, nb, a instanceof Uint, b instanceof Uint);
  }
  if (typeof a === 'string') return typeof b === 'string' ? compareStrings(a, b) : undefined;
  if (typeof a === 'boolean') return typeof b === 'boolean' ? Number(a) - Number(b) : undefined;
  if (a instanceof Uint8Array) return b instanceof Uint8Array ? compareBytes(a, b) : undefined;
  if (a instanceof Timestamp && b instanceof Timestamp) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  if (a instanceof Duration && b instanceof Duration) return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
  return undefined;
}

/** cel-go's size of a value for cost purposes (traits.Sizer: code points, bytes, elements, entries; 1 otherwise). */
export function actualSize(v: Val): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array) return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof MapValue) return v.size;
  if (v instanceof OptionalValue && v.value !== undefined) return actualSize(v.value);
  return 1;
}

// ---------------------------------------------------------------------------------------------
// JSON in and out

/**
 * A JSON document as the server holds one: numbers that are integers beyond 2^53 are bigints
 * (apimachinery/json-parse.ts with `int64: true`), so nothing is rounded.
 */
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** Counts (sizes, indexes) below this are shared bigints: each BigInt() is an allocation. */
const SHARED_COUNTS = Array.from({ length: 1024 }, (_, i) => BigInt(i));

/** A count (a size, an index: a non-negative safe integer) as a CEL int. */
export const countInt = (n: number): bigint => SHARED_COUNTS[n] ?? BigInt(n);

/**
 * A JSON value as CEL sees an unstructured object without a schema (kube's UnstructuredToVal
 * for `dyn`): integers are int (exact, bigints included), other numbers double, objects maps
 * with string keys. A schema may type a number as double: that mapping is the schema's (the
 * TypeProvider step), not this one's.
 */
export function fromJson(v: JsonValue): Value {
  switch (typeof v) {
    case 'number':
      return Number.isSafeInteger(v) ? (v >= 0 ? countInt(v) : BigInt(v)) : v;
    case 'bigint':
      return v >= MIN_INT64 && v <= MAX_INT64 ? v : Number(v);
    case 'string':
    case 'boolean':
      return v;
  }
  if (v === null) return null;
  if (Array.isArray(v)) return (v as readonly JsonValue[]).map(fromJson);
  const m = new MapValue();
  // A property a JS object holds as undefined is one JSON would not have.
  for (const [k, x] of Object.entries(v as { readonly [key: string]: JsonValue }))
    if (x !== undefined) m.set(k, fromJson(x));
  return m;
}
