// Which fields a value sets (SMD's typed/tofieldset.go).
//
// Leaves are scalars, atomic lists and maps, and map entries that are null or empty; a struct
// field holding a non-empty map is not itself in the set (its fields are), a map entry that is not
// a declared field always is. List items are in the set by key or value, and so are their fields.
// A list item that appears more than once is owned as a whole, without its fields.
import {
  FieldSet,
  PathCursor,
  fieldElement,
  pathElementKey,
  pathElementString,
  type PathElement,
} from './fieldpath.js';
import type { ListType, MapType, TypeNode } from './schema.js';
import { isTask, runStep, type Task } from './trampoline.js';
import {
  INVALID_ATOM,
  ValidationErrors,
  deduceAtom,
  errorOf,
  handleAtom,
  listItemToPathElement,
  messageOf,
  withPrefix,
  type ValidationError,
} from './typed-helpers.js';
import { isEmptyObject, presentEntries } from './values.js';
import { isJsonObject } from '../object.js';
import { appendAll } from '../append.js';

/** The set of fields `value` sets. Throws ValidationErrors where the value cannot be walked. */
export function toFieldSet(type: TypeNode, value: unknown): FieldSet {
  const set = new FieldSet();
  const errs = runStep(walk(type, value, new PathCursor(), set));
  if (errs.length > 0) throw new ValidationErrors(errs);
  return set;
}

type Errors = ValidationError[];

/** Adds what `value` sets below `path`: directly for leaves, as a task for containers. */
function walk(type: TypeNode | undefined, value: unknown, path: PathCursor, set: FieldSet): Errors | Task<Errors> {
  if (type === undefined) return errorOf(INVALID_ATOM);
  return handleAtom<Errors | Task<Errors>>(deduceAtom(type, value), {
    scalar: () => {
      path.insertInto(set);
      return [];
    },
    list: (list) => {
      if (list.relationship === 'atomic') {
        path.insertInto(set);
        return [];
      }
      return Array.isArray(value) ? visitListItems(list, value, path, set) : [];
    },
    map: (map) => {
      if (map.relationship === 'atomic') {
        path.insertInto(set);
        return [];
      }
      return isJsonObject(value) ? visitMapItems(map, value, path, set) : [];
    },
    invalid: () => errorOf(INVALID_ATOM),
  });
}

function* visitListItems(list: ListType, items: unknown[], path: PathCursor, set: FieldSet): Task<Errors> {
  const errs: Errors = [];
  const elements: Array<PathElement | undefined> = [];
  for (let i = 0; i < items.length; i++) {
    try {
      elements.push(listItemToPathElement(list, items[i]));
    } catch (err) {
      elements.push(undefined);
      errs.push(...errorOf(`element ${i}: ${messageOf(err)}`));
    }
  }
  // Items seen twice are owned whole: insert the item once and skip its fields.
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const pe of elements) {
    if (pe === undefined) continue;
    const key = pathElementKey(pe);
    if (!seen.has(key)) seen.add(key);
    else if (!duplicates.has(key)) {
      duplicates.add(key);
      path.child(pe).insertInto(set);
    }
  }
  for (let i = 0; i < items.length; i++) {
    const pe = elements[i];
    if (pe === undefined || duplicates.has(pathElementKey(pe))) continue;
    const childPath = path.child(pe);
    const step = walk(list.elementType, items[i], childPath, set);
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, pathElementString(pe)));
    childPath.insertInto(set);
  }
  return errs;
}

function* visitMapItems(map: MapType, m: { [key: string]: unknown }, path: PathCursor, set: FieldSet): Task<Errors> {
  const errs: Errors = [];
  for (const [key, val] of presentEntries(m)) {
    const childPath = path.child(fieldElement(key));
    const declared = map.fields.get(key);
    const step = walk(declared?.type ?? map.elementType, val, childPath, set);
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, '.' + key));
    if (val === null || declared === undefined || (isJsonObject(val) && isEmptyObject(val))) childPath.insertInto(set);
  }
  return errs;
}
