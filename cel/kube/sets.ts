// cel-go's sets extension (ext/sets.go), which kube 1.29+ enables: sets.contains,
// sets.equivalent and sets.intersects on lists, by their Contains. Its runtime cost is its own
// (an overload tracker, ahead of kube's): 1 + |a| × |b| × factor (2 for equivalent).
import { func, overload } from '../decls.js';
import type { Impl } from '../functions.js';
import { BoolType, listType, typeParam } from '../types.js';
import { type CelError, listContains, type Value } from '../values.js';
import type { KubeLibrary } from './library.js';

/** setsContains: each element of `sub` asked of `list`'s Contains, the first answer not `true` the result (an error too). */
function contains(list: readonly Value[], sub: readonly Value[]): boolean | CelError {
  for (const x of sub) {
    const found = listContains(list, x);
    if (found !== true) return found;
  }
  return true;
}
const list = (v: Value): readonly Value[] => v as readonly Value[];

const IMPLS: readonly (readonly [string, Impl])[] = [
  ['list_sets_contains_list', ([a, b]) => contains(list(a!), list(b!))],
  [
    'list_sets_equivalent_list',
    ([a, b]) => {
      const ab = contains(list(a!), list(b!));
      return ab !== true ? ab : contains(list(b!), list(a!));
    },
  ],
  // setsIntersects: the first list's elements asked of the second's Contains; only `true` counts.
  ['list_sets_intersects_list', ([a, b]) => list(a!).some((x) => listContains(list(b!), x) === true)],
];

/** cel-go's trackSetsCost factors by overload id. */
export const SETS_COST_FACTORS: ReadonlyMap<string, number> = new Map([
  ['list_sets_contains_list', 1],
  ['list_sets_intersects_list', 1],
  ['list_sets_equivalent_list', 2],
]);

const LIST_T = listType(typeParam('T'));

export const SETS_LIBRARY: KubeLibrary = {
  functions: [
    func('sets.contains', overload('list_sets_contains_list', [LIST_T, LIST_T], BoolType)),
    func('sets.equivalent', overload('list_sets_equivalent_list', [LIST_T, LIST_T], BoolType)),
    func('sets.intersects', overload('list_sets_intersects_list', [LIST_T, LIST_T], BoolType)),
  ],
  impls: new Map(IMPLS),
};
