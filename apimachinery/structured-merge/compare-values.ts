// What changed between two versions of an object, field by field (SMD's typed/compare.go).
//
// Added and removed cover containers as well as leaves (adding `.spec` with `.spec.size` in it
// adds both); modified covers leaves only (scalars and atomic values). List items are matched
// by key or value, so reordering a set or list-map changes nothing. Repeated items are compared
// as a group.
import { FieldSet, PathCursor, pathElementKey, pathElementString, type PathElement } from './fieldpath.js';
import type { ListType, MapType, TypeNode } from './schema.js';
import { PAUSE_EVERY, call, isTask, pause, runTask, type Task } from './trampoline.js';
import {
  INVALID_ATOM,
  ValidationErrors,
  atomsEqual,
  deduceAtom,
  errorOf,
  handleAtom,
  listItemToPathElement,
  messageOf,
  withPrefix,
  type ValidationError,
} from './typed-helpers.js';
import { validateScalar } from './validate.js';
import { isEmptyObject, own, presentEntries, valuesEqual } from './values.js';
import { isJsonObject } from '../object.js';
import { appendAll } from '../append.js';

/** The fields `next` added, changed and removed relative to `live`. No field is in two of them. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function isSame(c: Comparison): boolean {
  return c.added.empty() && c.modified.empty() && c.removed.empty();
}

/** Drops `fields`, and everything below them, from a comparison (SMD's ExcludeFields). */
export function excludeFields(c: Comparison, fields: FieldSet | undefined): Comparison {
  if (fields === undefined || fields.empty()) return c;
  return {
    added: c.added.recursiveDifference(fields),
    modified: c.modified.recursiveDifference(fields),
    removed: c.removed.recursiveDifference(fields),
  };
}

/** Compares `live` with `next`. Throws ValidationErrors where a value cannot be walked. */
export function compareTyped(type: TypeNode, live: unknown, next: unknown): Comparison {
  return runTask(compareTypedTask(type, live, next));
}

/** compareTyped as a task, for runs that are sliced. */
export function* compareTypedTask(type: TypeNode, live: unknown, next: unknown): Task<Comparison> {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const step = compareNode(type, live, next, new PathCursor(), c);
  const errs = isTask(step) ? yield* call(step) : step;
  if (errs.length > 0) throw new ValidationErrors(errs);
  return c;
}

type Errors = ValidationError[];

/** Whether the node was handled as a leaf (an atomic whole), which settles its own ownership. */
interface WalkState {
  inLeaf: boolean;
}

/** Compares one node: directly for leaves, as a task for containers. */
function compareNode(
  type: TypeNode | undefined,
  lhs: unknown,
  rhs: unknown,
  path: PathCursor,
  c: Comparison,
): Errors | Task<Errors> {
  if (lhs === undefined && rhs === undefined) return errorOf('at least one of lhs and rhs must be provided');
  if (type === undefined) return errorOf(INVALID_ATOM);
  const alhs = deduceAtom(type, lhs);
  const arhs = deduceAtom(type, rhs);
  const state: WalkState = { inLeaf: false };
  if (rhs !== undefined && lhs !== undefined && !atomsEqual(alhs, arhs))
    return compareDifferentShapes(alhs, arhs, lhs, rhs, path, c, state);
  const step = visitAtom(rhs === undefined ? alhs : arhs, lhs, rhs, path, c, state);
  if (isTask(step)) return finishContainer(step, lhs, rhs, path, c, state);
  recordContainer(lhs, rhs, path, c, state);
  return step;
}

/** A container (not a leaf) that appeared or disappeared is added or removed itself. */
function recordContainer(lhs: unknown, rhs: unknown, path: PathCursor, c: Comparison, state: WalkState): void {
  if (state.inLeaf) return;
  if (lhs === undefined) path.insertInto(c.added);
  else if (rhs === undefined) path.insertInto(c.removed);
}

function* finishContainer(
  step: Task<Errors>,
  lhs: unknown,
  rhs: unknown,
  path: PathCursor,
  c: Comparison,
  state: WalkState,
): Task<Errors> {
  const errs = (yield step) as Errors;
  recordContainer(lhs, rhs, path, c, state);
  return errs;
}

/** Different shapes on each side (possible with deduced types): walk both. */
function* compareDifferentShapes(
  alhs: TypeNode,
  arhs: TypeNode,
  lhs: unknown,
  rhs: unknown,
  path: PathCursor,
  c: Comparison,
  state: WalkState,
): Task<Errors> {
  const a = visitAtom(alhs, lhs, rhs, path, c, { inLeaf: false });
  const errs = [...(isTask(a) ? ((yield a) as Errors) : a)];
  const b = visitAtom(arhs, lhs, rhs, path, c, state);
  appendAll(errs, isTask(b) ? ((yield b) as Errors) : b);
  recordContainer(lhs, rhs, path, c, state);
  return errs;
}

function doLeaf(lhs: unknown, rhs: unknown, path: PathCursor, c: Comparison, state: WalkState): void {
  if (state.inLeaf) return;
  state.inLeaf = true;
  if (lhs === undefined) path.insertInto(c.added);
  else if (rhs === undefined) path.insertInto(c.removed);
  else if (!valuesEqual(rhs, lhs)) path.insertInto(c.modified);
}

function visitAtom(
  atom: TypeNode,
  lhs: unknown,
  rhs: unknown,
  path: PathCursor,
  c: Comparison,
  state: WalkState,
): Errors | Task<Errors> {
  return handleAtom<Errors | Task<Errors>>(atom, {
    scalar: (kind) => {
      const lerrs = validateScalar(kind, lhs, 'lhs: ');
      const rerrs = validateScalar(kind, rhs, 'rhs: ');
      if (lerrs.length > 0 && rerrs.length > 0) return [...lerrs, ...rerrs];
      doLeaf(lhs, rhs, path, c, state);
      return [];
    },
    list: (list) => {
      const l = Array.isArray(lhs) ? lhs : undefined;
      const r = Array.isArray(rhs) ? rhs : undefined;
      const emptyBoth = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
      if (list.relationship === 'atomic' || emptyBoth) {
        doLeaf(lhs, rhs, path, c, state);
        return [];
      }
      return compareListItems(list, l ?? [], r ?? [], path, c);
    },
    map: (map) => {
      const l = isJsonObject(lhs) ? lhs : undefined;
      const r = isJsonObject(rhs) ? rhs : undefined;
      const emptyBoth = (l === undefined || isEmptyObject(l)) && (r === undefined || isEmptyObject(r));
      if (map.relationship === 'atomic' || emptyBoth) {
        doLeaf(lhs, rhs, path, c, state);
        return [];
      }
      return compareMapItems(map, l ?? {}, r ?? {}, path, c);
    },
    invalid: () => errorOf(INVALID_ATOM),
  });
}

function* compareListItems(
  list: ListType,
  lhs: unknown[],
  rhs: unknown[],
  path: PathCursor,
  c: Comparison,
): Task<Errors> {
  const errs: Errors = [];
  // Every distinct element once (live's first), with all the items each side has for it.
  const order: PathElement[] = [];
  const lValues = new Map<string, unknown[]>();
  const rValues = new Map<string, unknown[]>();
  const gather = (items: unknown[], into: Map<string, unknown[]>, other: Map<string, unknown[]>): void => {
    for (let i = 0; i < items.length; i++) {
      let pe: PathElement;
      try {
        pe = listItemToPathElement(list, items[i]);
      } catch (err) {
        errs.push(...errorOf(`element ${i}: ${messageOf(err)}`));
        continue;
      }
      const key = pathElementKey(pe);
      const seen = into.get(key);
      if (seen) seen.push(items[i]);
      else {
        into.set(key, [items[i]]);
        if (!other.has(key)) order.push(pe);
      }
    }
  };
  gather(lhs, lValues, new Map());
  gather(rhs, rValues, lValues);

  for (let i = 0; i < order.length; i++) {
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    const pe = order[i]!;
    const key = pathElementKey(pe);
    const l = lValues.get(key) ?? [];
    const r = rValues.get(key) ?? [];
    const itemPath = path.child(pe);
    // The one item compared field by field, if any (see the cases below).
    let item: [unknown, unknown] | undefined;
    if (l.length <= 1 && r.length <= 1) {
      item = [l[0], r[0]];
    } else if (l.length >= 2 && r.length >= 2) {
      // Repeated on both sides: compared as one atomic group.
      if (l.length !== r.length || l.some((v, i) => !valuesEqual(v, r[i]))) itemPath.insertInto(c.modified);
    } else if (l.length >= 2) {
      // No longer repeated: the group goes, the single item comes.
      if (r.length !== 0) item = [undefined, r[0]];
      itemPath.insertInto(c.removed);
    } else {
      // Newly repeated: the single item goes, the group comes.
      if (l.length !== 0) item = [l[0], undefined];
      itemPath.insertInto(c.added);
    }
    if (item === undefined) continue;
    const step = compareNode(list.elementType, item[0], item[1], itemPath, c);
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, pathElementString(pe)));
  }
  return errs;
}

function* compareMapItems(
  map: MapType,
  lhs: { [key: string]: unknown },
  rhs: { [key: string]: unknown },
  path: PathCursor,
  c: Comparison,
): Task<Errors> {
  const errs: Errors = [];
  const keys: Array<[string, unknown, unknown]> = [];
  for (const [key, l] of presentEntries(lhs)) keys.push([key, l, own(rhs, key)]);
  for (const [key, r] of presentEntries(rhs)) if (own(lhs, key) === undefined) keys.push([key, undefined, r]);
  for (let i = 0; i < keys.length; i++) {
    if (i % PAUSE_EVERY === PAUSE_EVERY - 1) yield pause();
    const [key, l, r] = keys[i]!;
    const step = compareNode(
      map.fields.get(key)?.type ?? map.elementType,
      l,
      r,
      path.child({ kind: 'field', name: key }),
      c,
    );
    const below = isTask(step) ? ((yield step) as Errors) : step;
    if (below.length > 0) appendAll(errs, withPrefix(below, '.' + key));
  }
  return errs;
}
