// Removing fields from a value, or keeping only them (SMD's typed/remove.go).
//
// Apply uses removal to drop what the applier stopped applying and nobody else owns. A container
// emptied by removal becomes null rather than disappearing (its own path has to be in the set for
// it to go), as in SMD.
import { Emptiness, FieldSet, fieldElement, type KeyField, type Path } from './fieldpath.js';
import type { ListType, MapType, TypeNode } from './schema.js';
import { toFieldSet } from './to-field-set.js';
import { isTask, runStep, type Task } from './trampoline.js';
import { deduceAtom, handleAtom, listItemToPathElement } from './typed-helpers.js';
import { defineMember, isEmptyObject, presentEntries } from './values.js';
import { isJsonObject } from '../object.js';

/** `value` without the fields in `set`; null if nothing is left. */
export function removeItems(type: TypeNode, value: unknown, set: FieldSet): unknown {
  return runStep(walk(type, value, set, false, new Emptiness()));
}

export interface ExtractOptions {
  /** Also keep the key fields of every list-map item extracted (SMD's WithAppendKeyFields). */
  appendKeyFields?: boolean;
}

/** Only the fields of `value` that are in `set`; null if none. */
export function extractItems(type: TypeNode, value: unknown, set: FieldSet, options: ExtractOptions = {}): unknown {
  let items = set;
  if (options.appendKeyFields) {
    let present: FieldSet | undefined;
    try {
      present = toFieldSet(type, value);
    } catch {
      present = undefined;
    }
    if (present) {
      const keyFields = new FieldSet();
      set.iterate((path) => {
        if (!present.has(path)) return;
        path.forEach((pe, i) => {
          if (pe.kind !== 'key') return;
          for (const [name] of pe.key as readonly KeyField[])
            keyFields.insert([...path.slice(0, i + 1), fieldElement(name)] as Path);
        });
      });
      items = set.union(keyFields);
    }
  }
  return runStep(walk(type, value, items, true, new Emptiness()));
}

/** The node with the set's fields removed (or kept); directly for leaves, as a task for containers. */
function walk(
  type: TypeNode | undefined,
  value: unknown,
  set: FieldSet,
  extract: boolean,
  isEmpty: Emptiness,
): unknown {
  if (type === undefined) return null;
  const out = handleAtom<unknown>(deduceAtom(type, value), {
    scalar: () => value,
    list: (list) => (Array.isArray(value) ? walkList(list, value, set, extract, isEmpty) : undefined),
    map: (map) => (isJsonObject(value) ? walkMap(map, value, set, extract, isEmpty) : undefined),
    invalid: () => undefined,
  });
  return out === undefined ? null : out;
}

/** Runs a walk step from inside a task (leaf results come back as they are). */
function* sub(step: unknown): Task<unknown> {
  return isTask(step) ? yield step : step;
}

function walkList(list: ListType, value: unknown[], set: FieldSet, extract: boolean, isEmpty: Emptiness): unknown {
  // Empty lists, and atomic ones, are kept whole by extraction and dropped whole by removal.
  if (value.length === 0 || list.relationship === 'atomic') return extract ? value : undefined;
  return walkListItems(list, value, set, extract, isEmpty);
}

function* walkListItems(
  list: ListType,
  value: unknown[],
  set: FieldSet,
  extract: boolean,
  isEmpty: Emptiness,
): Task<unknown> {
  const items: unknown[] = [];
  for (const item of value) {
    let below: FieldSet | undefined;
    let exact = false;
    try {
      const pe = listItemToPathElement(list, item);
      exact = set.has([pe]);
      below = set.child(pe);
    } catch {
      // An item that cannot be named matches nothing in the set.
    }
    const prefixed = below !== undefined && isEmpty.get(below) === false;
    if (extract) {
      if (exact || prefixed)
        items.push(prefixed ? yield* sub(walk(list.elementType, item, below!, true, isEmpty)) : item);
    } else if (!exact) {
      items.push(prefixed ? yield* sub(walk(list.elementType, item, below!, false, isEmpty)) : item);
    }
  }
  return items.length > 0 ? items : null;
}

function walkMap(
  map: MapType,
  value: { [key: string]: unknown },
  set: FieldSet,
  extract: boolean,
  isEmpty: Emptiness,
): unknown {
  if (isEmptyObject(value) || map.relationship === 'atomic') return extract ? value : undefined;
  return walkMapItems(map, value, set, extract, isEmpty);
}

function* walkMapItems(
  map: MapType,
  value: { [key: string]: unknown },
  set: FieldSet,
  extract: boolean,
  isEmpty: Emptiness,
): Task<unknown> {
  const out: { [key: string]: unknown } = {};
  let any = false;
  for (const [key, val] of presentEntries(value)) {
    const pe = fieldElement(key);
    const t = map.fields.get(key)?.type ?? map.elementType;
    if (set.has([pe])) {
      // SMD hands the whole set (not the subtree) down here; kept for the same results.
      if (extract) {
        defineMember(out, key, yield* sub(walk(t, val, set, true, isEmpty)));
        any = true;
      }
      continue;
    }
    const below = set.child(pe);
    if (below !== undefined && isEmpty.get(below) === false) {
      defineMember(out, key, yield* sub(walk(t, val, below, extract, isEmpty)));
      any = true;
    } else if (!extract) {
      defineMember(out, key, val);
      any = true;
    }
  }
  return any ? out : null;
}
