// Pieces shared by the walks over typed values (SMD's typed/helpers.go): validation errors,
// picking the part of a type a value has, and naming list items.
import { keyElement, type KeyField, type PathElement } from './fieldpath.js';
import type { ListType, MapType, ScalarKind, TypeNode } from './schema.js';
import { isScalar } from './values.js';
import { isJsonObject } from '../object.js';

/** One problem with a value, at a path written as SMD writes it (`.spec.list[name="a"]`). */
export interface ValidationError {
  path: string;
  message: string;
}

/** A value that does not fit its type, or cannot be walked; the message is SMD's. */
export class ValidationErrors extends Error {
  readonly errors: readonly ValidationError[];

  constructor(errors: readonly ValidationError[]) {
    super(formatErrors(errors));
    this.name = 'ValidationErrors';
    this.errors = errors;
  }
}

function formatOne(e: ValidationError): string {
  return e.path === '' ? e.message : `${e.path}: ${e.message}`;
}

function formatErrors(errors: readonly ValidationError[]): string {
  if (errors.length === 1) return formatOne(errors[0]!);
  return ['errors:', ...errors.map((e) => '  ' + formatOne(e))].join('\n');
}

export function errorOf(message: string): ValidationError[] {
  return [{ path: '', message }];
}

/** Prefixes each error's path, as errors travel up from a child. */
export function withPrefix(errors: ValidationError[], prefix: string): ValidationError[] {
  for (const e of errors) e.path = prefix + e.path;
  return errors;
}

/**
 * The part of `type` that applies to `value` (SMD's deduceAtom): its scalar, list or map atom.
 * An absent value, null, or one the type has no atom for leaves the type whole; later steps then
 * report the mismatch.
 */
export function deduceAtom(type: TypeNode, value: unknown): TypeNode {
  if (value === undefined || value === null) return type;
  if (isScalar(value)) return type.scalar ? { scalar: type.scalar } : type;
  if (Array.isArray(value)) return type.list ? { list: type.list } : type;
  if (isJsonObject(value)) return type.map ? { map: type.map } : type;
  return type;
}

export function atomsEqual(a: TypeNode, b: TypeNode): boolean {
  return a.scalar === b.scalar && a.list === b.list && a.map === b.map;
}

/** What a walk does at each kind of atom (SMD's atomHandler). */
interface AtomHandler<R> {
  scalar(kind: ScalarKind): R;
  list(list: ListType): R;
  map(map: MapType): R;
  /** A type with no atom at all (SMD: "schema error: invalid atom"). */
  invalid(): R;
}

/** Dispatches on the atom, map first, as SMD's handleAtom. */
export function handleAtom<R>(atom: TypeNode, handler: AtomHandler<R>): R {
  if (atom.map) return handler.map(atom.map);
  if (atom.scalar) return handler.scalar(atom.scalar);
  if (atom.list) return handler.list(atom.list);
  return handler.invalid();
}

export const INVALID_ATOM = 'schema error: invalid atom: inlined';

/** A key element from a list-map item: its key fields, or their schema defaults when missing. */
function keyedItemToPathElement(list: ListType, child: unknown): PathElement {
  if (child === null) throw new Error('associative list with keys may not have a null element');
  if (!isJsonObject(child)) throw new Error('associative list with keys may not have non-map elements');
  const fields: KeyField[] = [];
  for (const name of list.keys) {
    if (Object.hasOwn(child, name) && child[name] !== undefined) {
      fields.push([name, child[name]]);
      continue;
    }
    const elementMap = list.elementType.map;
    if (!elementMap)
      throw new Error(`couldn't find default value for ${name}: associative list may not have non-map types`);
    const def = elementMap.fields.get(name)?.default;
    // A key field with neither value nor default is left out: the item is another entry.
    if (def !== undefined && def !== null) fields.push([name, def]);
  }
  if (list.keys.length > 0 && fields.length === 0) {
    const quoted = '[' + list.keys.map((k) => JSON.stringify(k)).join(' ') + ']';
    throw new Error(
      `associative list with keys has an element that omits all key fields ${quoted} (and doesn't have default values for any key fields)`,
    );
  }
  return keyElement(fields);
}

function setItemToPathElement(child: unknown): PathElement {
  if (isJsonObject(child)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(child)) throw new Error('not supported: associative list with lists as elements');
  if (child === null) throw new Error("associative list without keys has an element that's an explicit null");
  return { kind: 'value', value: child };
}

/** The element naming a list item: its key for a list-map, its value for a set. Throws otherwise. */
export function listItemToPathElement(list: ListType, child: unknown): PathElement {
  if (list.relationship === 'atomic') throw new Error('invalid indexing of non-associative list');
  return list.relationship === 'map' ? keyedItemToPathElement(list, child) : setItemToPathElement(child);
}

/** The message text of a thrown value. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
