// x-kubernetes-list-type set and map (apiextensions-apiserver schema/listtype
// ValidateListSetsAndMaps): no element of a set twice, no key of a map twice, as Go compares them.
import {
  type FieldError,
  GoPrinted,
  child,
  duplicate,
  index,
  invalid,
  key,
} from '../../../apimachinery/field-errors.js';
import {
  type DPath,
  type FloatInfo,
  type GoKind,
  dchild,
  dindex,
  goBadValue,
  goIntString,
  goKind,
  goSharpMap,
} from './go-values.js';
import { goJSON } from '../../../apimachinery/go-json.js';
import { isJsonObject } from '../../../apimachinery/object.js';
import { type Node, additionalSchema } from './schema-node.js';
import { appendAll } from '../../../apimachinery/append.js';

const UNSPECIFIED = Symbol('unspecified');

/** The identity kube's set check gives a list element (Go interface equality, or JSON for compounds). */
function setKey(v: unknown, dpath: DPath, isFloat: FloatInfo): string {
  if (v === UNSPECIFIED) return 'u';
  const kind = goKind(v, dpath, isFloat);
  if (kind === 'nil') return 'n';
  return scalarIdentity(v, kind) ?? `j:${goJSON(v)}`;
}

/** A scalar's identity as Go's interface equality sees it (int 1 and float 1 differ); none for nil and compounds. */
export function scalarIdentity(v: unknown, kind: GoKind): string | undefined {
  switch (kind) {
    case 'bool':
      return `b:${String(v)}`;
    case 'int':
      return `i:${goIntString(v as number)}`;
    case 'float':
      return `f:${String(v)}`;
    case 'string':
      return `s:${v as string}`;
    default:
      return undefined;
  }
}

/** Indices of the second occurrence of each repeated element. */
function nonUnique(keys: string[]): number[] {
  if (keys.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const times = seen.get(k);
    if (times === undefined) seen.set(k, 1);
    else {
      if (times === 1) out.push(i);
      seen.set(k, times + 1);
    }
  });
  return out;
}

export function listTypeErrors(
  x: unknown,
  n: Node | undefined,
  pth: string,
  dpath: DPath,
  isFloat: FloatInfo,
  out: FieldError[],
): void {
  // A value whose schema has no list type anywhere has nothing to check (100,000 map keys, each a path).
  if (!n?.listTypesWithin) return;
  if (Array.isArray(x)) {
    listTypeArrayErrors(x, n, pth, dpath, isFloat, out);
    return;
  }
  if (!isJsonObject(x)) return;
  const extra = additionalSchema(n);
  if (extra) for (const k of Object.keys(x)) listTypeErrors(x[k], extra, key(pth, k), dchild(dpath, k), isFloat, out);
  for (const k of Object.keys(x)) {
    const p = n.properties.get(k);
    if (p) listTypeErrors(x[k], p, child(pth, k), dchild(dpath, k), isFloat, out);
  }
}

function listTypeArrayErrors(
  arr: unknown[],
  n: Node,
  pth: string,
  dpath: DPath,
  isFloat: FloatInfo,
  out: FieldError[],
): void {
  if (n.listType === 'set') {
    for (const i of nonUnique(arr.map((v, i) => setKey(v, dindex(dpath, i), isFloat)))) {
      out.push(duplicate(index(pth, i), goBadValue(arr[i], dindex(dpath, i), isFloat)));
    }
  } else if (n.listType === 'map') {
    appendAll(out, listMapErrors(arr, n, pth, dpath, isFloat));
  }
  if (n.items) arr.forEach((v, i) => listTypeErrors(v, n.items, index(pth, i), dindex(dpath, i), isFloat, out));
}

function listMapErrors(arr: unknown[], n: Node, pth: string, dpath: DPath, isFloat: FloatInfo): FieldError[] {
  for (let i = 0; i < arr.length; i++) {
    const x = arr[i];
    if (x !== null && x !== undefined && !isJsonObject(x)) {
      return [
        invalid(
          index(pth, i),
          goBadValue(x, dindex(dpath, i), isFloat),
          'must be an object for an array of list-type map',
        ),
      ];
    }
  }
  if (arr.length <= 1) return [];
  const itemPath = (i: number, k: string): DPath => dchild(dindex(dpath, i), k);
  if (n.listMapKeys.length === 1) {
    const k = n.listMapKeys[0]!;
    const keys = arr.map((x) => (isJsonObject(x) && Object.hasOwn(x, k) ? x[k] : UNSPECIFIED));
    return nonUnique(keys.map((v, i) => setKey(v, itemPath(i, k), isFloat))).map((i) =>
      duplicate(
        index(pth, i),
        new GoPrinted(
          keys[i] === UNSPECIFIED ? 'map[string]interface {}{}' : goSharpMap([[k, keys[i], itemPath(i, k)]], isFloat),
        ),
      ),
    );
  }
  const keys = arr.map((x, i) => {
    const entries = new Map<string, readonly [string, unknown, DPath]>();
    if (isJsonObject(x))
      for (const k of n.listMapKeys) if (Object.hasOwn(x, k)) entries.set(k, [k, x[k], itemPath(i, k)]);
    return [...entries.values()];
  });
  const json = keys.map((entries) => goJSON(Object.fromEntries(entries.map(([k, v]) => [k, v]))));
  return nonUnique(json).map((i) => duplicate(index(pth, i), new GoPrinted(goSharpMap(keys[i]!, isFloat))));
}
