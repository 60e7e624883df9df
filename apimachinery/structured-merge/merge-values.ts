// Merging an apply configuration into a live object (SMD's typed/merge.go, rule "keep RHS").
//
// Leaves (scalars, atomic lists and maps, and containers empty on both sides) take the
// configuration's value when it has one. Granular maps merge key by key. Sets and list-maps merge
// item by item: live items keep their place, and items only the configuration has are inserted
// before the next item both have, in the configuration's order; items both have follow the
// configuration's order. Nothing is removed here; pruning is the updater's business.
import { pathElementKey, pathElementsEqual, pathElementString, type PathElement } from './fieldpath.js';
import type { ListType, MapType, TypeNode } from './schema.js';
import { isTask, runStep, type Task } from './trampoline.js';
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
import { defineMember, isEmptyObject, own, presentEntries } from './values.js';
import { isJsonObject } from '../object.js';
import { appendAll } from '../append.js';

/** `config` merged over `live`; null when the result is empty. Throws ValidationErrors. */
export function mergeValues(type: TypeNode, live: unknown, config: unknown): unknown {
  const { out, errs } = runStep(mergeNode(type, live, config));
  if (errs.length > 0) throw new ValidationErrors(errs);
  return out === undefined ? null : out;
}

interface MergeResult {
  /** The merged value; undefined when neither side leaves anything. */
  out: unknown;
  errs: ValidationError[];
}

type Step = MergeResult | Task<MergeResult>;

/** Both sides at one node; `undefined` means absent (null is a value). */
function mergeNode(type: TypeNode | undefined, lhs: unknown, rhs: unknown): Step {
  if (lhs === undefined && rhs === undefined)
    return { out: undefined, errs: errorOf('at least one of lhs and rhs must be provided') };
  if (type === undefined) return { out: undefined, errs: errorOf(INVALID_ATOM) };
  const alhs = deduceAtom(type, lhs);
  if (rhs === undefined) return visitAtom(alhs, lhs, rhs);
  const arhs = deduceAtom(type, rhs);
  if (lhs === undefined || atomsEqual(alhs, arhs)) return visitAtom(arhs, lhs, rhs);
  return mergeDifferentShapes(alhs, arhs, lhs, rhs);
}

/**
 * The sides have different shapes (a deduced field turned from map to scalar): the old shape is
 * walked for its errors only, the new one decides the output.
 */
function* mergeDifferentShapes(alhs: TypeNode, arhs: TypeNode, lhs: unknown, rhs: unknown): Task<MergeResult> {
  const a = visitAtom(alhs, lhs, rhs);
  const old = isTask(a) ? ((yield a) as MergeResult) : a;
  const b = visitAtom(arhs, lhs, rhs);
  const now = isTask(b) ? ((yield b) as MergeResult) : b;
  return { out: now.out, errs: [...old.errs, ...now.errs] };
}

/** A leaf takes the configuration's value when it has one. */
function keepRHS(lhs: unknown, rhs: unknown): MergeResult {
  return { out: rhs !== undefined ? rhs : lhs, errs: [] };
}

function visitAtom(atom: TypeNode, lhs: unknown, rhs: unknown): Step {
  return handleAtom<Step>(atom, {
    scalar: (kind) => {
      // One valid side is enough: the other may be what is being replaced.
      const lerrs = validateScalar(kind, lhs, 'lhs: ');
      const rerrs = validateScalar(kind, rhs, 'rhs: ');
      if (lerrs.length > 0 && rerrs.length > 0) return { out: undefined, errs: [...lerrs, ...rerrs] };
      return keepRHS(lhs, rhs);
    },
    list: (list) => {
      const l = Array.isArray(lhs) ? lhs : undefined;
      const r = Array.isArray(rhs) ? rhs : undefined;
      // Empty or null on both sides: a leaf, which keeps the empty/null distinction.
      const emptyBoth = (l === undefined || l.length === 0) && (r === undefined || r.length === 0);
      if (list.relationship === 'atomic' || emptyBoth) return keepRHS(lhs, rhs);
      return mergeListItems(list, l ?? [], r ?? []);
    },
    map: (map) => {
      const l = isJsonObject(lhs) ? lhs : undefined;
      const r = isJsonObject(rhs) ? rhs : undefined;
      const emptyBoth = (l === undefined || isEmptyObject(l)) && (r === undefined || isEmptyObject(r));
      if (map.relationship === 'atomic' || emptyBoth) return keepRHS(lhs, rhs);
      return mergeMapItems(map, l ?? {}, r ?? {});
    },
    invalid: () => ({ out: undefined, errs: errorOf(INVALID_ATOM) }),
  });
}

interface IndexedList {
  elements: PathElement[];
  /** Item by element; a repeated item maps to null, so it is not merged field by field. */
  observed: Map<string, unknown>;
}

function indexList(list: ListType, items: unknown[], allowDuplicates: boolean, errs: ValidationError[]): IndexedList {
  const elements: PathElement[] = [];
  const observed = new Map<string, unknown>();
  for (let i = 0; i < items.length; i++) {
    let pe: PathElement;
    try {
      pe = listItemToPathElement(list, items[i]);
    } catch (err) {
      errs.push(...errorOf(`element ${i}: ${messageOf(err)}`));
      continue;
    }
    const key = pathElementKey(pe);
    const found = observed.has(key);
    if (found && !allowDuplicates) {
      errs.push(...errorOf(`duplicate entries for key ${pathElementString(pe)}`));
      continue;
    }
    observed.set(key, found ? null : items[i]);
    elements.push(pe);
  }
  return { elements, observed };
}

function* mergeListItems(list: ListType, lhs: unknown[], rhs: unknown[]): Task<MergeResult> {
  const errs: ValidationError[] = [];
  // The configuration may not repeat items; the live object may (it was stored that way).
  const right = indexList(list, rhs, false, errs);
  const left = indexList(list, lhs, true, errs);
  if (errs.length > 0) return { out: undefined, errs };
  const out: unknown[] = [];
  for (const [l, r] of mergeOrder(left, right, lhs)) {
    // Like SMD, errors below a list item do not fail the merge (validation reports them).
    const step = mergeNode(list.elementType, l, r);
    const item = isTask(step) ? ((yield step) as MergeResult) : step;
    if (item.out !== undefined) out.push(item.out);
  }
  return { out: out.length > 0 ? out : undefined, errs: [] };
}

/**
 * The merged list's items in order, as (live item, configuration item) pairs. Live items keep
 * their place; items both sides have follow the configuration's order; items only the
 * configuration has go before the next item both have.
 */
function mergeOrder(left: IndexedList, right: IndexedList, lhs: unknown[]): Array<[unknown, unknown]> {
  const pairs: Array<[unknown, unknown]> = [];
  const shared = right.elements.filter((pe) => left.observed.has(pathElementKey(pe)));
  let nextShared = shared.shift();
  const mergedRHS = new Set<string>();
  const lLen = left.elements.length;
  const rLen = right.elements.length;
  let lI = 0;
  let rI = 0;
  while (lI < lLen || rI < rLen) {
    if (lI < lLen && rI < rLen) {
      const pe = left.elements[lI]!;
      const key = pathElementKey(pe);
      if (pathElementsEqual(pe, right.elements[rI]!)) {
        mergedRHS.add(key);
        pairs.push([left.observed.get(key), right.observed.get(key)]);
        lI++;
        rI++;
        nextShared = shared.shift();
        continue;
      }
      if (right.observed.has(key) && nextShared !== undefined && !pathElementsEqual(nextShared, pe)) {
        // A shared item, but not the next one in the configuration's order: it comes later.
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const key = pathElementKey(left.elements[lI]!);
      if (!right.observed.has(key)) {
        // Only live has it: it stays where it is (taken by position, as duplicates map to null).
        pairs.push([lhs[lI], undefined]);
        lI++;
        continue;
      } else if (mergedRHS.has(key)) {
        lI++;
      }
    }
    if (rI < rLen) {
      const pe = right.elements[rI]!;
      const key = pathElementKey(pe);
      mergedRHS.add(key);
      pairs.push([left.observed.get(key), right.observed.get(key)]);
      rI++;
      if (nextShared !== undefined && pathElementsEqual(nextShared, pe)) nextShared = shared.shift();
    }
  }
  return pairs;
}

function* mergeMapItems(
  map: MapType,
  lhs: { [key: string]: unknown },
  rhs: { [key: string]: unknown },
): Task<MergeResult> {
  const errs: ValidationError[] = [];
  const out: { [key: string]: unknown } = {};
  let any = false;
  // Live's keys keep their order; keys only the configuration has follow in its order.
  const keys: Array<[string, unknown, unknown]> = [];
  for (const [key, l] of presentEntries(lhs)) keys.push([key, l, own(rhs, key)]);
  for (const [key, r] of presentEntries(rhs)) if (own(lhs, key) === undefined) keys.push([key, undefined, r]);
  for (const [key, l, r] of keys) {
    const step = mergeNode(map.fields.get(key)?.type ?? map.elementType, l, r);
    const item = isTask(step) ? ((yield step) as MergeResult) : step;
    if (item.errs.length > 0) appendAll(errs, withPrefix(item.errs, '.' + key));
    if (item.out !== undefined) {
      defineMember(out, key, item.out);
      any = true;
    }
  }
  return { out: any ? out : undefined, errs };
}
