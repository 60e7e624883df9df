// Strategic merge patch as kube-apiserver applies `application/strategic-merge-patch+json` to a
// built-in kind: k8s.io/apimachinery/pkg/util/strategicpatch StrategicMergeMapPatch (mergeMap with
// MergeParallelList and IgnoreUnmatchedNulls), behind the PATCH handler's decoding and its error
// mapping (k8s.io/apiserver/pkg/endpoints/handlers/patch.go, interpretStrategicMergePatchError).
// The walk recurses as kube's does, but as trampolined tasks: documents nest 10,000 deep. Where kube
// scans a list for each item of another, the lists are indexed by value instead (goEqualKey): the
// same answers, linear in the lists' lengths rather than quadratic.
import { type ApiError, badRequest, patchRejected } from '../errors.js';
import { type JsonObject, type JsonValue, cloneJson, isJsonObject, setOwn } from '../object.js';
import { jsonKind } from '../json.js';
import { type Task, call, runTask } from '../structured-merge/trampoline.js';
import { type GoKind, goEqual, goEqualKey, goFormat, goKind, goTypeName } from './go-format.js';
import { goSliceStable } from './go-sort.js';
import { type FieldPatchMeta, type PatchMeta, lookupPatchMeta } from './patch-meta.js';

const DIRECTIVE_MARKER = '$patch';
const DELETE_DIRECTIVE = 'delete';
const REPLACE_DIRECTIVE = 'replace';
const MERGE_DIRECTIVE = 'merge';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

// mergepatch's sentinel errors: the handler maps these (and only these) to 400 and 422.
const ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS = 'invalid patch format of retainKeys';
const ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST = 'invalid patch format of setElementOrder list';
const ERR_NO_LIST_OF_LISTS = 'lists of lists are not supported';

/** How the PATCH handler answers an error: 400, 422 (NewGenericServerResponse) or as a plain Go error. */
export type ErrorClass = 'badRequest' | 'unprocessable' | 'plain';

/** An error strategicpatch returns, with kube's text; converted to an ApiError at the entry point. */
export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly errorClass: ErrorClass = 'plain',
  ) {
    super(message);
    this.name = 'StrategicMergePatchError';
  }
}

const fail = (message: string, errorClass: ErrorClass = 'plain'): never => {
  throw new StrategicMergePatchError(message, errorClass);
};
const errNoMergeKey = (m: JsonObject, key: string): never =>
  fail(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);
const errBadArgType = (expected: string, actual: JsonValue | undefined): never =>
  fail(`expected a ${expected}, but received a ${goTypeName(actual)}`);
const errBadPatchType = (t: JsonValue, m: JsonObject): never =>
  fail(`unknown patch type: ${goFormat(t, 's')} in map: ${goFormat(m)}`);
const MAP_TYPE = 'map[string]interface {}';
const SLICE_TYPE = '[]interface {}';

const has = (o: JsonObject, k: string): boolean => Object.hasOwn(o, k);
const get = (o: JsonObject, k: string): JsonValue | undefined => (Object.hasOwn(o, k) ? o[k] : undefined);

/** extractRetainKeysPatchStrategy over the tag split on commas: the strategy besides retainKeys. */
function patchStrategyOf(field: FieldPatchMeta): string {
  const strategies = (field.patchStrategy ?? '').split(',');
  if (strategies.length === 1) return strategies[0] === RETAIN_KEYS_STRATEGY ? '' : strategies[0]!;
  if (strategies.length === 2) {
    if (strategies[0] === RETAIN_KEYS_STRATEGY) return strategies[1]!;
    if (strategies[1] === RETAIN_KEYS_STRATEGY) return strategies[0]!;
  }
  return fail(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

/** sliceElementType: the one Go kind of every element of the lists; lists of lists are refused. */
function sliceElementKind(...lists: JsonValue[][]): GoKind {
  let prev: GoKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = goKind(v);
      if (prev === undefined) {
        prev = k;
        if (prev === 'slice') fail(ERR_NO_LIST_OF_LISTS, 'unprocessable');
      } else if (prev !== k) {
        fail(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (prev === undefined) fail('no elements in any of the given slices');
  return prev!;
}

/** extractKey: the field a `$prefix/field` directive names. */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX) fail(ERR_BAD_PATCH_FORMAT_FOR_PRIMITIVE_LIST, 'badRequest');
    fail(ERR_BAD_PATCH_FORMAT_FOR_SET_ELEMENT_ORDER_LIST, 'badRequest');
  }
  return s.slice(slash + 1);
}

/** What index() compares: a map's merge-key value (nothing for a non-map), or the item itself. */
const orderValue = (x: JsonValue, mergeKey: string, kind: GoKind): JsonValue | undefined =>
  kind !== 'map' ? x : isJsonObject(x) ? get(x, mergeKey) : undefined;

/** index() over one list for many items: where each item first occurs (by orderValue), or -1. */
function positionsIn(list: readonly JsonValue[], mergeKey: string, kind: GoKind): (item: JsonValue) => number {
  const first = new Map<string, number>();
  for (let i = 0; i < list.length; i++) {
    const key = goEqualKey(orderValue(list[i]!, mergeKey, kind));
    if (key !== undefined && !first.has(key)) first.set(key, i);
  }
  return (item) => {
    const key = goEqualKey(orderValue(item, mergeKey, kind));
    return key === undefined ? -1 : (first.get(key) ?? -1);
  };
}

function validateMergeKeyInLists(mergeKey: string, ...lists: JsonValue[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) errBadArgType(MAP_TYPE, item);
      else if (!has(item, mergeKey)) errNoMergeKey(item, mergeKey);
    }
  }
}

/** extractToDeleteItems: the items without and with `$patch: delete`. */
function extractToDeleteItems(list: JsonValue[]): [JsonValue[], JsonValue[]] {
  const keep: JsonValue[] = [];
  const toDelete: JsonValue[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) return errBadArgType(MAP_TYPE, v);
    if (get(v, DIRECTIVE_MARKER) === DELETE_DIRECTIVE) toDelete.push(v);
    else keep.push(v);
  }
  return [keep, toDelete];
}

/** normalizeSliceOrder: sorts by position in `order` with kube's (not strict) less; deletions last. */
function normalizeSliceOrder(toSort: JsonValue[], order: JsonValue[], mergeKey: string, kind: GoKind): JsonValue[] {
  let sorted = toSort.slice();
  let toDelete: JsonValue[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, sorted, order);
    [sorted, toDelete] = extractToDeleteItems(sorted);
  }
  const position = positionsIn(order, mergeKey, kind);
  const ranked = sorted.map((item) => ({ item, at: position(item) }));
  goSliceStable(ranked, (i, j) => {
    const ii = ranked[i]!.at;
    const ij = ranked[j]!.at;
    return ii < 0 || ij < 0 || ii < ij;
  });
  return [...ranked.map((r) => r.item), ...toDelete];
}

/**
 * mergeSortedSlice: interleaves server-only items (left) into the patch's items (right), each
 * keeping its order; a left item goes first only when both are in the live list and it is earlier.
 */
function mergeSortedSlice(
  left: JsonValue[],
  right: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: GoKind,
): JsonValue[] {
  const out: JsonValue[] = [];
  const position = positionsIn(serverOrder, mergeKey, kind);
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]!);
    else if (j >= right.length) out.push(left[i++]!);
    else {
      const li = position(left[i]!);
      const ri = position(right[j]!);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}

function normalizeElementOrder(
  patch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: GoKind,
): JsonValue[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

/** The goEqualKeys of a list's scalars: a set to test membership as `==` against each would. */
function scalarKeys(list: readonly JsonValue[]): Set<string> {
  const keys = new Set<string>();
  for (const v of list) {
    const key = goEqualKey(v);
    if (key !== undefined) keys.add(key);
  }
  return keys;
}

const inKeys = (keys: Set<string>, v: JsonValue | undefined): boolean => {
  const key = goEqualKey(v);
  return key !== undefined && keys.has(key);
};

function partitionPrimitives(list: JsonValue[], by: JsonValue[]): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  const keys = scalarKeys(by);
  for (const v of list) (inKeys(keys, v) ? inPatch : serverOnly).push(v);
  return [inPatch, serverOnly];
}

/**
 * findMapInSliceBasedOnKeyValue over one list for many values: the first map whose merge key
 * equals the value, or -1; a non-map met before it (or before the end) fails as kube's scan does.
 * `append` and `dropFirst` keep it true as the list changes.
 */
class MergeKeyIndex {
  /** Per value, the positions of the maps holding it, from `head` on. */
  private readonly holders = new Map<string, { at: number[]; head: number }>();
  private firstNonMap = -1;
  private length = 0;

  constructor(
    private readonly mergeKey: string,
    list: readonly JsonValue[],
    length = list.length,
  ) {
    for (let k = 0; k < length; k++) this.append(list[k]!);
  }

  append(v: JsonValue): void {
    const k = this.length++;
    if (!isJsonObject(v)) {
      if (this.firstNonMap < 0) this.firstNonMap = k;
      return;
    }
    if (!has(v, this.mergeKey)) return;
    const key = goEqualKey(v[this.mergeKey]);
    if (key === undefined) return;
    const holders = this.holders.get(key);
    if (holders) holders.at.push(k);
    else this.holders.set(key, { at: [k], head: 0 });
  }

  /** The first map holding `value` no longer does (a patch's null merge key deleted it). */
  dropFirst(value: JsonValue | undefined): void {
    const holders = this.holders.get(goEqualKey(value)!);
    if (holders) holders.head++;
  }

  find(value: JsonValue | undefined): number {
    const key = goEqualKey(value);
    const holders = key === undefined ? undefined : this.holders.get(key);
    const at = holders && holders.head < holders.at.length ? holders.at[holders.head]! : -1;
    if (this.firstNonMap >= 0 && (at < 0 || at > this.firstNonMap))
      fail(`value for key ${this.firstNonMap} is not a map`);
    return at;
  }
}

function partitionMaps(list: JsonValue[], by: JsonValue[], mergeKey: string): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  const index = new MergeKeyIndex(mergeKey, by);
  for (const v of list) {
    if (!isJsonObject(v)) return errBadArgType(MAP_TYPE, v);
    if (!has(v, mergeKey)) return errNoMergeKey(v, mergeKey);
    (index.find(v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/**
 * deduplicateScalars: each value once, at its first occurrence. kube's swaps the last item into a
 * duplicate's slot; that order never shows, as its callers sort the list again by the positions
 * of its (then unique) items in the patch and the live list.
 */
function deduplicateScalars(s: JsonValue[]): JsonValue[] {
  const seen = new Set<string>();
  return s.filter((v) => {
    const key = goEqualKey(v)!;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function deleteFromSlice(current: JsonValue[], toDelete: JsonValue[]): JsonValue[] {
  const keys = scalarKeys(toDelete);
  return current.filter((v) => !inKeys(keys, v));
}

/**
 * A Go slice over a shared backing array. kube's list merge edits the live list's backing array
 * in place (deletions shift it, appends fill the room they free), and the caller that holds the
 * live list reads it afterwards to order the result: the order depends on those writes. The live
 * list's capacity is taken to be its length (what Go leaves on a slice it decoded exactly).
 */
interface GoSlice {
  arr: JsonValue[];
  len: number;
  cap: number;
}

/**
 * append(s, v): in place while there is room, else onto a private copy, which no one else reads:
 * Go's growth of its capacity shows nowhere, so it has room from then on.
 */
function goAppend(s: GoSlice, v: JsonValue): void {
  if (s.len >= s.cap) {
    s.arr = s.arr.slice(0, s.len);
    s.cap = Infinity;
  }
  s.arr[s.len++] = v;
}

/**
 * deleteMatchingEntries for each value in turn, in one pass: kube deletes every match, first to
 * last, each as append(s[:i], s[i+1:]...), which shifts the rest left and leaves the slot past the
 * new end holding the list's last item of the moment. Those slots are part of the array the caller
 * reads afterwards, so they are written as kube's shifts leave them.
 */
function deleteMatchingEntries(original: GoSlice, values: readonly JsonValue[], mergeKey: string): void {
  const { arr } = original;
  const matches = new Map<string, number[]>();
  for (let k = 0; k < original.len; k++) {
    const v = arr[k] as JsonObject;
    const key = has(v, mergeKey) ? goEqualKey(v[mergeKey]) : undefined;
    if (key === undefined) continue;
    const at = matches.get(key);
    if (at) at.push(k);
    else matches.set(key, [k]);
  }
  const deleted = new Uint8Array(original.len);
  const leftInSlot = new Map<number, JsonValue>();
  let len = original.len;
  let last = len - 1;
  for (const value of values) {
    const key = goEqualKey(value);
    const at = key === undefined ? undefined : matches.get(key);
    if (!at) continue;
    matches.delete(key!);
    for (const k of at) {
      while (deleted[last]) last--;
      leftInSlot.set(len - 1, arr[last]!);
      deleted[k] = 1;
      len--;
    }
  }
  if (len === original.len) return;
  let n = 0;
  for (let k = 0; k < original.len; k++) if (!deleted[k]) arr[n++] = arr[k]!;
  for (const [slot, v] of leftInSlot) arr[slot] = v;
  original.len = len;
}

/**
 * mergeSliceWithSpecialElements: applies `$patch: delete` items to the live list (in place, as
 * deleteMatchingEntries) and notes `$patch: replace`. Returns the live list to merge into, and the
 * patch's plain items.
 */
function mergeSliceWithSpecialElements(
  original: GoSlice,
  patch: JsonValue[],
  mergeKey: string,
): [GoSlice, JsonValue[]] {
  const plain: JsonValue[] = [];
  const toDelete: JsonValue[] = [];
  let replace = false;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!has(item, DIRECTIVE_MARKER)) {
      plain.push(v);
      continue;
    }
    const patchType = item[DIRECTIVE_MARKER]!;
    if (patchType === DELETE_DIRECTIVE) {
      if (!has(item, mergeKey)) errNoMergeKey(item, mergeKey);
      toDelete.push(item[mergeKey]!);
    } else if (patchType === REPLACE_DIRECTIVE) {
      // Later items are still read, so that other directives are checked and pruned.
      replace = true;
    } else if (patchType === MERGE_DIRECTIVE) {
      fail('merging lists cannot yet be specified in the patch');
    } else {
      errBadPatchType(patchType, item);
    }
  }
  // Every item is a map (sliceElementKind), so deleting fails nothing: doing it after the scan
  // leaves the errors above and the list as kube's in-order deletions do.
  deleteMatchingEntries(original, toDelete, mergeKey);
  if (replace) return [{ arr: plain, len: plain.length, cap: plain.length }, []];
  return [original, plain];
}

/** mergeSliceWithoutSpecialElements: items matched by merge key merge, others are appended. */
function* mergeSliceWithoutSpecialElements(
  live: GoSlice,
  patch: JsonValue[],
  mergeKey: string,
  elemMeta: PatchMeta | undefined,
): Task<JsonValue[]> {
  const merged: GoSlice = { ...live };
  const index = new MergeKeyIndex(mergeKey, merged.arr, merged.len);
  for (const v of patch) {
    const item = v as JsonObject;
    if (!has(item, mergeKey)) errNoMergeKey(item, mergeKey);
    const value = item[mergeKey];
    const at = index.find(value);
    if (at >= 0) {
      // The merged item keeps the patch item's (equal) merge key, unless that null deleted it.
      const mergedItem = yield* call(mergeMap(merged.arr[at] as JsonObject, item, elemMeta));
      merged.arr[at] = mergedItem;
      if (!has(mergedItem, mergeKey)) index.dropFirst(value);
    } else {
      goAppend(merged, v);
      index.append(v);
    }
  }
  return merged.arr.slice(0, merged.len);
}

/** mergeSlice: a list with strategy merge, by merge key for maps, as a set for scalars. */
function* mergeSlice(
  original: JsonValue[],
  patch: JsonValue[],
  field: FieldPatchMeta,
  isDeleteList: boolean,
): Task<JsonValue[]> {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  const mergeKey = field.patchMergeKey ?? '';
  let merged: JsonValue[];
  let live = original;
  let items = patch;
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    // kube names the Go kind of the field's elements; our tagged merge lists of scalars are []string.
    if (mergeKey === '') fail(`cannot merge lists without merge key for ${field.type ? 'struct' : 'string'}`);
    const [liveSlice, plain] = mergeSliceWithSpecialElements(
      { arr: original, len: original.length, cap: original.length },
      patch,
      mergeKey,
    );
    items = plain;
    merged = yield* call(mergeSliceWithoutSpecialElements(liveSlice, items, mergeKey, field.type));
    live = liveSlice.arr.slice(0, liveSlice.len);
  }
  const [patchItems, serverOnly] =
    mergeKey === '' ? partitionPrimitives(merged, items) : partitionMaps(merged, items, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, items, live, mergeKey, kind);
}

function* mergeSliceHandler(
  original: JsonValue[],
  patch: JsonValue[],
  field: FieldPatchMeta,
  strategy: string,
  isDeleteList: boolean,
): Task<JsonValue[]> {
  // A delete list deletes whatever the field's strategy.
  if (strategy === MERGE_DIRECTIVE || isDeleteList)
    return yield* call(mergeSlice(original, patch, field, isDeleteList));
  return patch;
}

function handleDirectiveInMergeMap(directive: JsonValue, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  return errBadPatchType(directive, patch);
}

/** applyRetainKeysDirective: clears the live fields `$retainKeys` does not list. */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!has(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const list = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(list)) return fail(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS, 'badRequest');
  const keys = scalarKeys(list);
  const retained = (k: string): boolean => inKeys(keys, k);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX))
      continue;
    if (!retained(k)) fail(ERR_BAD_PATCH_FORMAT_FOR_RETAIN_KEYS, 'badRequest');
  }
  for (const k of Object.keys(original)) if (!retained(k)) delete original[k];
}

/** validatePatchWithSetOrderList: the patch's items must follow `$setElementOrder`'s order. */
function validatePatchWithSetOrderList(patchList: JsonValue[], setOrderList: JsonValue[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey.length > 0 ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < setOrderList.length) {
    const item = nonDelete[p]!;
    if (isJsonObject(item) && has(item, DIRECTIVE_MARKER)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, setOrderList[s]!, mergeKey)) p++;
    s++;
  }
  if (p < nonDelete.length && s >= setOrderList.length) {
    fail(
      `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goFormat(setOrderList)}\n`,
    );
  }
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (mergeKey.length === 0) return goEqual(left, right);
  if (!isJsonObject(left)) return errBadArgType(MAP_TYPE, left);
  if (!isJsonObject(right)) return errBadArgType(MAP_TYPE, right);
  if (!has(left, mergeKey)) return errNoMergeKey(left, mergeKey);
  if (!has(right, mergeKey)) return errNoMergeKey(right, mergeKey);
  return goEqual(left[mergeKey], right[mergeKey]);
}

/**
 * mergePatchIntoOriginal: each `$setElementOrder/<field>` with its list, merged and ordered:
 * `$setElementOrder` first, then the patch's order, then the live list's. Both leave `patch`.
 */
function* mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, meta: PatchMeta | undefined): Task<void> {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX) || !has(patch, key)) continue;
    const order = patch[key]!;
    delete patch[key];
    if (!Array.isArray(order)) return errBadArgType(SLICE_TYPE, order);
    const field = extractKey(key, SET_ELEMENT_ORDER_PREFIX);
    const originalList = get(original, field);
    const patchList = get(patch, field);
    const foundOriginal = originalList !== undefined;
    const foundPatch = patchList !== undefined;
    if (foundOriginal && !Array.isArray(originalList)) return errBadArgType(SLICE_TYPE, originalList);
    if (foundPatch && !Array.isArray(patchList)) return errBadArgType(SLICE_TYPE, patchList);
    const originalValue = (originalList ?? []) as JsonValue[];
    const patchValue = (patchList ?? []) as JsonValue[];
    const fieldMeta = lookupPatchMeta(meta, field);
    const strategy = patchStrategyOf(fieldMeta);
    const mergeKey = fieldMeta.patchMergeKey ?? '';
    validatePatchWithSetOrderList(patchValue, order, mergeKey);
    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) merged = originalValue;
    else if (!foundOriginal && foundPatch) merged = withoutDirectiveItems(patchValue);
    else if (foundOriginal && foundPatch)
      merged = yield* call(mergeSliceHandler(originalValue, patchValue, fieldMeta, strategy, false));
    else continue;
    const [patchItems, serverOnly] =
      mergeKey.length === 0 ? partitionPrimitives(merged, order) : partitionMaps(merged, order, mergeKey);
    const kind = sliceElementKind(originalValue, patchValue);
    // originalValue is the live list as mergeSlice left it (deletions shift it in place, as in Go).
    setOwn(original, field, normalizeElementOrder(patchItems, serverOnly, order, originalValue, mergeKey, kind));
    delete patch[field];
  }
}

/** discardNullValuesFromPatch: drops null members of maps at any depth (null list items stay). */
function discardNullValues(root: JsonValue): void {
  const stack: JsonValue[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' && item !== null) stack.push(item);
    } else if (isJsonObject(v)) {
      for (const k of Object.keys(v)) {
        const child = v[k]!;
        if (child === null) delete v[k];
        else if (typeof child === 'object') stack.push(child);
      }
    }
  }
}

const hasDirective = (v: JsonValue): boolean => isJsonObject(v) && has(v, DIRECTIVE_MARKER);

/**
 * removeDirectives, in place: a map holding `$patch` is dropped (from its parent map or list)
 * wherever it sits. Returns whether `root` itself stays.
 */
function keepsAfterRemovingDirectives(root: JsonValue): boolean {
  if (hasDirective(root)) return false;
  const stack: JsonValue[] = [root];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      let n = 0;
      for (const item of v) {
        if (hasDirective(item)) continue;
        v[n++] = item;
        if (typeof item === 'object' && item !== null) stack.push(item);
      }
      v.length = n;
    } else if (isJsonObject(v)) {
      for (const k of Object.keys(v)) {
        const child = v[k]!;
        if (hasDirective(child)) delete v[k];
        else if (typeof child === 'object' && child !== null) stack.push(child);
      }
    }
  }
  return true;
}

/** removeDirectives of a list: a copy without the items (and nested maps) that carry `$patch`. */
function withoutDirectiveItems(list: JsonValue[]): JsonValue[] {
  const copy = list.slice();
  keepsAfterRemovingDirectives(copy);
  return copy;
}

/** mergeMap: a patch map into a live map (both owned by the caller, and changed). */
function* mergeMap(original: JsonObject, patch: JsonObject, meta: PatchMeta | undefined): Task<JsonObject> {
  if (has(patch, DIRECTIVE_MARKER)) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER]!, patch);
  applyRetainKeysDirective(original, patch);
  yield* call(mergePatchIntoOriginal(original, patch, meta));
  for (const patchKey of Object.keys(patch)) {
    const patchV = patch[patchKey]!;
    let k = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      isDeleteList = true;
      const field = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      if (field.length > 0) k = field;
    }
    // null deletes; a null for a field the object lacks is dropped (IgnoreUnmatchedNulls).
    if (patchV === null) {
      delete original[k];
      continue;
    }
    // A value that replaces wholesale loses its nulls and directives; a delete list never lands.
    if (!has(original, k) || goKind(original[k]) !== goKind(patchV)) {
      if (!isDeleteList) {
        discardNullValues(patchV);
        if (keepsAfterRemovingDirectives(patchV)) setOwn(original, k, patchV);
        else delete original[k];
      }
      continue;
    }
    const originalV = original[k]!;
    const kind = goKind(originalV);
    if (kind === 'map') {
      const field = lookupPatchMeta(meta, k);
      const strategy = patchStrategyOf(field);
      setOwn(
        original,
        k,
        strategy !== REPLACE_DIRECTIVE
          ? yield* call(mergeMap(originalV as JsonObject, patchV as JsonObject, field.type))
          : patchV,
      );
    } else if (kind === 'slice') {
      const field = lookupPatchMeta(meta, k);
      const strategy = patchStrategyOf(field);
      setOwn(
        original,
        k,
        yield* call(mergeSliceHandler(originalV as JsonValue[], patchV as JsonValue[], field, strategy, isDeleteList)),
      );
    } else {
      setOwn(original, k, patchV);
    }
  }
  return original;
}

/**
 * strategicpatch.StrategicMergeMapPatch: the patched copy of `original`. Neither input is changed.
 * Throws StrategicMergePatchError with kube's message.
 */
export function strategicMergeMapPatch(original: JsonObject, patch: JsonObject, schema: PatchMeta): JsonObject {
  return runTask(mergeMap(cloneJson(original), cloneJson(patch), schema));
}

/** A StrategicMergePatchError as kube's PATCH handler answers it. */
export function toPatchApiError(err: StrategicMergePatchError): ApiError {
  // NewGenericServerResponse(422, ...): its own message, kube's text only in the server log.
  if (err.errorClass === 'unprocessable') return patchRejected();
  // kube answers the rest (a missing merge key, an unknown directive) as a plain Go error, a 500;
  // they are the patch's faults, so a 400 here, with kube's text.
  return badRequest(err.message);
}

/**
 * A strategic-merge-patch request body applied to the current object, as kube-apiserver applies it
 * to a built-in kind described by `schema`. The body is decoded into a map first: `null` leaves it
 * empty (a no-op), anything else but an object is a 400. Invalid patches throw ApiError: 400 for
 * mergepatch's bad-format errors, 422 for lists of lists, 500 (no reason) for every other error.
 */
export function strategicMergePatch(original: JsonObject, patch: unknown, schema: PatchMeta): JsonObject {
  if (patch === null || patch === undefined) return cloneJson(original);
  if (!isJsonObject(patch as JsonValue)) {
    throw badRequest(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`);
  }
  try {
    return strategicMergeMapPatch(original, patch as JsonObject, schema);
  } catch (err) {
    if (err instanceof StrategicMergePatchError) throw toPatchApiError(err);
    throw err;
  }
}
