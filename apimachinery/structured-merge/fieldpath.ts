// Field paths and sets of them: SMD's fieldpath.PathElement, Path and Set.
//
// A set is a trie: at each level, `members` are the elements that are themselves in the set and
// `children` the elements with something in the set below them. An element may be both (a list
// item owned as a whole and also through its fields). Both arrays are kept sorted in SMD's
// PathElement order, which is also the order FieldsV1 is written in.
import type { TypeNode } from './schema.js';
import { call, runTask, type Task } from './trampoline.js';
import { compareGoStrings } from '../go-sort.js';
import { goJSON } from '../go-json.js';
import { compareValues, goValueString, valuesEqual } from './values.js';

/** A [field name, value] pair of a list-map item's key. */
export type KeyField = readonly [name: string, value: unknown];

/**
 * One step into a value: a map field by name, a list-map item by its key fields (sorted by name),
 * a set item by its value, or an atomic-list item by index.
 */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly key: readonly KeyField[] }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'index'; readonly index: number };

export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return { kind: 'field', name };
}

/** A key element; the fields are sorted by name (stably, as SMD's FieldList.Sort). */
export function keyElement(fields: Iterable<KeyField> | Readonly<Record<string, unknown>>): PathElement {
  const list: KeyField[] = isKeyFieldIterable(fields) ? [...fields] : Object.entries(fields);
  return { kind: 'key', key: sortKeyFields(list) };
}

function isKeyFieldIterable(x: Iterable<KeyField> | Readonly<Record<string, unknown>>): x is Iterable<KeyField> {
  return typeof (x as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}

export function sortKeyFields(fields: KeyField[]): KeyField[] {
  // Array.prototype.sort is stable, as SMD's sort.SliceStable.
  return fields.sort((a, b) => compareGoStrings(a[0], b[0]));
}

export function valueElement(value: unknown): PathElement {
  return { kind: 'value', value };
}

export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

/** Builds a path: strings are field names, numbers indices, anything else a PathElement. */
export function makePath(...parts: Array<string | number | PathElement>): Path {
  return parts.map((p) => (typeof p === 'string' ? fieldElement(p) : typeof p === 'number' ? indexElement(p) : p));
}

const KIND_RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

/** SMD's PathElement.Compare: field names, then keys, then values, then indices. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_RANK[a.kind] < KIND_RANK[b.kind] ? -1 : 1;
  switch (a.kind) {
    case 'field':
      return compareGoStrings(a.name, (b as typeof a).name);
    case 'key':
      return compareKeys(a.key, (b as typeof a).key);
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index': {
      const j = (b as typeof a).index;
      return a.index < j ? -1 : a.index > j ? 1 : 0;
    }
  }
}

function compareKeys(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const c = compareGoStrings(a[i]![0], b[i]![0]);
    if (c !== 0) return c;
    const d = compareValues(a[i]![1], b[i]![1]);
    if (d !== 0) return d;
  }
}

export function pathElementsEqual(a: PathElement, b: PathElement): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'field':
      return a.name === (b as typeof a).name;
    case 'key': {
      const k = (b as typeof a).key;
      return a.key.length === k.length && a.key.every(([n, v], i) => n === k[i]![0] && valuesEqual(v, k[i]![1]));
    }
    case 'value':
      return valuesEqual(a.value, (b as typeof a).value);
    case 'index':
      return a.index === (b as typeof a).index;
  }
}

/** A string that is the same exactly for equal elements, to key JS maps by element. */
export function pathElementKey(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return 'f' + pe.name;
    case 'key':
      return 'k' + goJSON(pe.key.map(([n, v]) => [n, v]));
    case 'value':
      return 'v' + goJSON(pe.value);
    case 'index':
      return 'i' + String(pe.index);
  }
}

/** SMD's PathElement.String: `.name`, `[k=v,...]`, `[=value]`, `[3]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return '.' + pe.name;
    case 'key':
      return '[' + pe.key.map(([n, v]) => `${n}=${goValueString(v)}`).join(',') + ']';
    case 'value':
      return `[=${goValueString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** SMD's Path.String, e.g. `.spec.containers[name="a"].image`. */
export function pathString(path: Path): string {
  return path.map(pathElementString).join('');
}

/**
 * A path grown one element at a time by a walk, which inserts itself into sets without walking
 * each set from its root again (which would cost the depth at every level). Each cursor remembers
 * where it sits in the sets it was inserted into.
 */
export class PathCursor {
  /** Made at the first insertion below this path: most cursors are leaves, which never need it. */
  private placed: Array<[FieldSet, FieldSet]> | undefined;

  constructor(
    readonly parent?: PathCursor,
    readonly element?: PathElement,
  ) {}

  child(pe: PathElement): PathCursor {
    return new PathCursor(this, pe);
  }

  /** Adds this path to `set`; the root (empty) path is never added, as FieldSet.insert. */
  insertInto(set: FieldSet): void {
    if (this.parent === undefined) return;
    this.parent.nodeIn(set).addMember(this.element!);
  }

  /** The subtree of `set` this path leads to, created as needed. */
  private nodeIn(set: FieldSet): FieldSet {
    const own = this.placedIn(set);
    if (own) return own;
    // A walk inserts a path before what lies below it: its parent is placed already.
    const parent = this.parent!.placedIn(set);
    if (parent) return this.place(set, parent.descend(this.element!));
    const chain: PathCursor[] = [];
    let node: FieldSet | undefined;
    for (let c: PathCursor | undefined = this; c !== undefined; c = c.parent) {
      node = c.placedIn(set);
      if (node) break;
      chain.push(c);
    }
    for (let i = chain.length - 1; i >= 0; i--) node = chain[i]!.place(set, node!.descend(chain[i]!.element!));
    return node!;
  }

  /** The subtree of `set` this path leads to, if known (the root's is the set itself). */
  private placedIn(set: FieldSet): FieldSet | undefined {
    if (this.parent === undefined) return set;
    const placed = this.placed;
    if (placed) for (const [s, node] of placed) if (s === set) return node;
    return undefined;
  }

  private place(set: FieldSet, node: FieldSet): FieldSet {
    (this.placed ??= []).push([set, node]);
    return node;
  }

  /** The path itself. */
  path(): Path {
    const out: PathElement[] = [];
    for (let c: PathCursor | undefined = this; c?.parent !== undefined; c = c.parent) out.push(c.element!);
    return out.reverse();
  }
}

/** Position of `pe` in a sorted array, or the bitwise complement of where it would go. */
function search<T>(items: readonly T[], pe: PathElement, elementOf: (t: T) => PathElement): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = comparePathElements(elementOf(items[mid]!), pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return ~lo;
}

const self = (pe: PathElement): PathElement => pe;
const nodeElement = (n: SetNode): PathElement => n.element;

/** Below this many children, one added out of order is spliced in at once. */
const SPLICE_BELOW = 64;

/** A child subtree of a FieldSet. */
interface SetNode {
  readonly element: PathElement;
  readonly set: FieldSet;
}

/**
 * A set of field paths (SMD's fieldpath.Set). Operations return sets that may be their operands,
 * or share subtrees with them: insert only into sets you built yourself.
 */
export class FieldSet {
  private readonly sortedMembers: PathElement[] = [];
  /**
   * Members added out of order, sorted in at the next read: a walk adds an object's keys in the
   * object's order, and inserting each at its place moved O(n) items each time.
   */
  private unsortedMembers: PathElement[] | undefined;
  private readonly sortedChildren: SetNode[] = [];
  /**
   * Children added out of order to a long list, by element key, sorted in at the next read: a
   * walk descends into an object's keys in the object's order, and splicing each in at its place
   * moved O(n) items each time (a map of 200,000 objects: a minute of splicing).
   */
  private pendingChildren: Map<string, SetNode> | undefined;

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Elements in the set at this level, sorted. */
  get members(): readonly PathElement[] {
    return this.memberList;
  }

  private get memberList(): PathElement[] {
    const added = this.unsortedMembers;
    if (added) {
      this.unsortedMembers = undefined;
      const all = this.sortedMembers;
      for (const pe of added) all.push(pe);
      all.sort(comparePathElements);
      let n = 0;
      for (const pe of all) if (n === 0 || comparePathElements(all[n - 1]!, pe) !== 0) all[n++] = pe;
      all.length = n;
    }
    return this.sortedMembers;
  }

  /** Subtrees below this level, sorted by element. */
  get children(): readonly SetNode[] {
    return this.childList;
  }

  private get childList(): SetNode[] {
    const pending = this.pendingChildren;
    if (pending) {
      this.pendingChildren = undefined;
      const all = this.sortedChildren;
      for (const node of pending.values()) all.push(node);
      all.sort((a, b) => comparePathElements(a.element, b.element));
    }
    return this.sortedChildren;
  }

  /** Adds a path. Its parents are not added; the empty path (the whole object) is never tracked. */
  insert(path: Path): void {
    if (path.length === 0) return;
    let s: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) s = s.descend(path[i]!);
    s.addMember(path[path.length - 1]!);
  }

  /** Adds an element at this level. */
  addMember(pe: PathElement): void {
    const sorted = this.sortedMembers;
    const last =
      sorted.length > 0 && this.unsortedMembers === undefined
        ? comparePathElements(sorted[sorted.length - 1]!, pe)
        : -1;
    if (last === 0) return;
    if (last < 0 && this.unsortedMembers === undefined) sorted.push(pe);
    else (this.unsortedMembers ??= []).push(pe);
  }

  /** The subtree under `pe`, created if absent (SMD's SetNodeMap.Descend). */
  descend(pe: PathElement): FieldSet {
    const sorted = this.sortedChildren;
    const at = search(sorted, pe, nodeElement);
    if (at >= 0) return sorted[at]!.set;
    const pending = this.pendingChildren;
    const key = pending || (~at < sorted.length && sorted.length >= SPLICE_BELOW) ? pathElementKey(pe) : '';
    const found = pending?.get(key);
    if (found) return found.set;
    const set = new FieldSet();
    const node = { element: pe, set };
    if (key !== '') (this.pendingChildren ??= new Map()).set(key, node);
    else sorted.splice(~at, 0, node);
    return set;
  }

  /** Puts `set` under `pe`, replacing any subtree there. */
  replaceChild(pe: PathElement, set: FieldSet): void {
    const at = search(this.childList, pe, nodeElement);
    if (at >= 0) this.childList[at] = { element: pe, set };
    else this.childList.splice(~at, 0, { element: pe, set });
  }

  /** The subtree under `pe` if there is one. */
  child(pe: PathElement): FieldSet | undefined {
    const at = search(this.childList, pe, nodeElement);
    return at >= 0 ? this.childList[at]!.set : undefined;
  }

  hasMember(pe: PathElement): boolean {
    return search(this.memberList, pe, self) >= 0;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let s: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && s; i++) s = s.child(path[i]!);
    return s?.hasMember(path[path.length - 1]!) ?? false;
  }

  /** The paths under `pe`, without the `pe` prefix (empty if none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  empty(): boolean {
    const todo: FieldSet[] = [this];
    while (todo.length > 0) {
      const s = todo.pop()!;
      if (s.memberList.length > 0) return false;
      for (const c of s.childList) todo.push(c.set);
    }
    return true;
  }

  /** Number of paths in the set. */
  size(): number {
    let n = 0;
    const todo: FieldSet[] = [this];
    while (todo.length > 0) {
      const s = todo.pop()!;
      n += s.memberList.length;
      for (const c of s.childList) todo.push(c.set);
    }
    return n;
  }

  equals(other: FieldSet): boolean {
    const todo: Array<[FieldSet, FieldSet]> = [[this, other]];
    while (todo.length > 0) {
      const [a, b] = todo.pop()!;
      if (a.memberList.length !== b.memberList.length || a.childList.length !== b.childList.length) return false;
      for (let i = 0; i < a.memberList.length; i++)
        if (!pathElementsEqual(a.memberList[i]!, b.memberList[i]!)) return false;
      for (let i = 0; i < a.childList.length; i++) {
        const x = a.childList[i]!;
        const y = b.childList[i]!;
        if (!pathElementsEqual(x.element, y.element)) return false;
        todo.push([x.set, y.set]);
      }
    }
    return true;
  }

  union(other: FieldSet): FieldSet {
    return runTask(unionTask(this, other));
  }

  /** Leaf paths in both sets; subtrees left empty are dropped. */
  intersection(other: FieldSet): FieldSet {
    return runTask(intersectionTask(this, other)).set;
  }

  /**
   * Paths in this set but not in `other`. For a parent and a child: parent - child = parent, and
   * child - parent = child (only exact paths are removed).
   */
  difference(other: FieldSet): FieldSet {
    return runTask(differenceTask(this, other, false, new Emptiness())).set;
  }

  /** Like difference, but a path in `other` also removes everything below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    return runTask(differenceTask(this, other, true, new Emptiness())).set;
  }

  /** Only the leaf paths: members that have nothing in the set below them. */
  leaves(): FieldSet {
    return runTask(leavesTask(this));
  }

  /**
   * This set plus the named struct fields on the way to its paths (`.a` for `.a.b.c` when `a` is
   * a declared field), but not map keys or list items. Apply uses this to remove whole fields.
   */
  ensureNamedFieldsAreMembers(type: TypeNode | undefined): FieldSet {
    return runTask(ensureNamedTask(this, type));
  }

  /** Calls `fn` with every path, members before subtrees at each level (SMD's Iterate order). */
  iterate(fn: (path: Path) => void): void {
    const todo: Array<[FieldSet, Path]> = [[this, []]];
    while (todo.length > 0) {
      const [s, prefix] = todo.pop()!;
      for (const m of s.memberList) fn([...prefix, m]);
      for (let i = s.childList.length - 1; i >= 0; i--)
        todo.push([s.childList[i]!.set, [...prefix, s.childList[i]!.element]]);
    }
  }

  /** Every path, in iteration order. */
  paths(): Path[] {
    const out: Path[] = [];
    this.iterate((p) => out.push(p));
    return out;
  }

  copy(): FieldSet {
    return runTask(copyTask(this));
  }

  /** One path per line, as SMD's Set.String. */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }

  /** Builds a set from sorted, distinct parts (for the operations below). */
  static fromSorted(members: PathElement[], children: SetNode[]): FieldSet {
    const s = new FieldSet();
    // One at a time: spread arguments live on the stack, which a set of a few hundred thousand overflows.
    for (const m of members) s.sortedMembers.push(m);
    for (const c of children) s.childList.push(c);
    return s;
  }
}

// The set operations walk both tries level by level; as tasks, so depth is not limited by the
// call stack.

/** A set with nothing at its top: a union or difference with it gives the other operand itself. */
const bare = (s: FieldSet): boolean => s.members.length === 0 && s.children.length === 0;

function* unionTask(a: FieldSet, b: FieldSet): Task<FieldSet> {
  if (bare(b)) return a;
  if (bare(a)) return b;
  const members: PathElement[] = [];
  for (const [x, y] of pairUp(a.members, b.members, self)) members.push((x ?? y)!);
  const children: SetNode[] = [];
  for (const [x, y] of pairUp(a.children, b.children, nodeElement)) {
    if (x && y) children.push({ element: x.element, set: yield* call(unionTask(x.set, y.set)) });
    else children.push((x ?? y)!);
  }
  return FieldSet.fromSorted(members, children);
}

/** A computed set and whether it is empty, known without walking it again. */
interface Computed {
  set: FieldSet;
  empty: boolean;
}

function* intersectionTask(a: FieldSet, b: FieldSet): Task<Computed> {
  const members: PathElement[] = [];
  for (const [x, y] of pairUp(a.members, b.members, self)) if (x && y) members.push(x);
  const children: SetNode[] = [];
  for (const [x, y] of pairUp(a.children, b.children, nodeElement)) {
    if (!x || !y) continue;
    const r = yield* call(intersectionTask(x.set, y.set));
    if (!r.empty) children.push({ element: x.element, set: r.set });
  }
  return { set: FieldSet.fromSorted(members, children), empty: members.length === 0 && children.length === 0 };
}

function* differenceTask(a: FieldSet, b: FieldSet, recursive: boolean, isEmpty: Emptiness): Task<Computed> {
  if (bare(b)) return { set: a, empty: isEmpty.get(a) };
  // Both sides' sorted arrays walked together by index, not as pairUp's pairs: every write strips
  // the server's metadata fields from its manager's set with this.
  const members: PathElement[] = [];
  const am = a.members;
  const bm = b.members;
  for (let i = 0, j = 0; i < am.length; ) {
    const c = j < bm.length ? comparePathElements(am[i]!, bm[j]!) : -1;
    if (c < 0) members.push(am[i++]!);
    else {
      if (c === 0) i++;
      j++;
    }
  }
  const children: SetNode[] = [];
  let empty = members.length === 0;
  const ac = a.children;
  const bc = b.children;
  for (let i = 0, j = 0; i < ac.length; ) {
    const x = ac[i]!;
    const c = j < bc.length ? comparePathElements(x.element, bc[j]!.element) : -1;
    if (c > 0) {
      j++;
      continue;
    }
    i++;
    const y = c === 0 ? bc[j++] : undefined;
    // Recursively, a member of `b` takes everything below it away.
    if (recursive && b.hasMember(x.element)) continue;
    if (!y) {
      children.push(x);
      if (!isEmpty.get(x.set)) empty = false;
      continue;
    }
    const r = yield* call(differenceTask(x.set, y.set, recursive, isEmpty));
    if (!r.empty) {
      children.push({ element: x.element, set: r.set });
      empty = false;
    }
  }
  return { set: FieldSet.fromSorted(members, children), empty };
}

/**
 * Whether subtrees of a set are empty, found as they are asked about: a check stops at the first
 * member it meets, and remembers what it learnt (the subtrees it finished, and every subtree on
 * the way to the member found), so that asking about subtrees nested in each other, as a walk
 * going down does, still costs one pass over the set at most. Most checks of a set that holds
 * anything end at once; a write's set ops ask about a few subtrees of sets as large as the object.
 */
export class Emptiness {
  /** A Map, not a WeakMap: it lives for one operation, and a WeakMap costs more to fill and to collect. */
  private readonly known = new Map<FieldSet, boolean>();

  get(set: FieldSet): boolean {
    const known = this.known.get(set);
    if (known !== undefined) return known;
    // Depth first, without recursion: each entry is a subtree and the next of its children to enter.
    const path: Array<[FieldSet, number]> = [[set, 0]];
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const [s, next] = top;
      const memo = next === 0 ? this.known.get(s) : undefined;
      if (memo === false || (next === 0 && memo === undefined && s.members.length > 0)) {
        for (const [p] of path) this.known.set(p, false);
        return false;
      }
      if (memo === true || next >= s.children.length) {
        this.known.set(s, true);
        path.pop();
        continue;
      }
      top[1] = next + 1;
      path.push([s.children[next]!.set, 0]);
    }
    return true;
  }
}

function* leavesTask(a: FieldSet): Task<FieldSet> {
  const members = a.members.filter((m) => !a.child(m));
  const children: SetNode[] = [];
  for (const c of a.children) children.push({ element: c.element, set: yield* call(leavesTask(c.set)) });
  return FieldSet.fromSorted(members, children);
}

function* ensureNamedTask(a: FieldSet, type: TypeNode | undefined): Task<FieldSet> {
  const out = FieldSet.fromSorted([...a.members], []);
  for (const c of a.children) {
    if (c.element.kind === 'field' && type?.map?.fields.has(c.element.name)) out.addMember(c.element);
  }
  const children: SetNode[] = [];
  for (const c of a.children) {
    let childType: TypeNode | undefined;
    if (c.element.kind === 'field' && type?.map)
      childType = type.map.fields.get(c.element.name)?.type ?? type.map.elementType;
    else if (c.element.kind === 'key' && type?.list) childType = type.list.elementType;
    children.push({ element: c.element, set: yield* call(ensureNamedTask(c.set, childType)) });
  }
  return FieldSet.fromSorted([...out.members], children);
}

function* copyTask(a: FieldSet): Task<FieldSet> {
  const children: SetNode[] = [];
  for (const c of a.children) children.push({ element: c.element, set: yield* call(copyTask(c.set)) });
  return FieldSet.fromSorted([...a.members], children);
}

/** Walks two sorted arrays together: one pair per distinct element, with what each side has. */
function pairUp<T>(
  a: readonly T[],
  b: readonly T[],
  elementOf: (t: T) => PathElement,
): Array<[T | undefined, T | undefined]> {
  const out: Array<[T | undefined, T | undefined]> = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePathElements(elementOf(a[i]!), elementOf(b[j]!));
    if (c < 0) out.push([a[i++], undefined]);
    else if (c > 0) out.push([undefined, b[j++]]);
    else out.push([a[i++], b[j++]]);
  }
  while (i < a.length) out.push([a[i++], undefined]);
  while (j < b.length) out.push([undefined, b[j++]]);
  return out;
}
