// Kube's lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min and max
// with an overload per element type (ids `list_<type>_is_sorted_bool`, `list_<type>_sum_<type>`,
// ...), indexOf and lastIndexOf on any list.
import { func, memberOverload, type OverloadDecl } from '../decls.js';
import { type Impl, STANDARD_IMPLS, UNMETERED } from '../functions.js';
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  IntType,
  listType,
  StringType,
  TimestampType,
  type Type,
  typeParam,
  UintType,
} from '../types.js';
import {
  CelError,
  compare,
  Duration,
  equals,
  noSuchOverload,
  typeName,
  Uint,
  type Val,
  type Value,
} from '../values.js';
import type { KubeLibrary } from './library.js';

const SUMMABLE: readonly (readonly [string, Type, Value])[] = [
  ['int', IntType, 0n],
  ['uint', UintType, new Uint(0n)],
  ['double', DoubleType, 0],
  ['duration', DurationType, new Duration(0n)],
];

const COMPARABLE: readonly (readonly [string, Type])[] = [
  ['int', IntType],
  ['uint', UintType],
  ['double', DoubleType],
  ['bool', BoolType],
  ['duration', DurationType],
  ['timestamp', TimestampType],
  ['string', StringType],
  ['bytes', BytesType],
];

/** The standard `+` for the accumulator's type: cel-go's Adder, with its overflow errors. */
const ADDERS: ReadonlyMap<string, Impl> = new Map(
  (
    [
      ['int', 'add_int64'],
      ['uint', 'add_uint64'],
      ['double', 'add_double'],
      ['google.protobuf.Duration', 'add_duration_duration'],
    ] as const
  ).map(([t, id]) => [t, STANDARD_IMPLS.get(id)!]),
);

function sum(list: readonly Value[], zero: Value): Val {
  let acc: Val = zero;
  for (const v of list) {
    const add = ADDERS.get(typeName(acc));
    // Adding across types (a dyn list) has no overload, as cel-go's Add.
    if (add === undefined || typeName(v) !== typeName(acc)) return noSuchOverload();
    acc = add([acc, v], UNMETERED);
    if (acc instanceof CelError) return acc;
  }
  return acc;
}

function isSorted(list: readonly Value[]): boolean {
  for (let i = 1; i < list.length; i++) if (compare(list[i - 1]!, list[i]!) === 1) return false;
  return true;
}

/** min (prefer = 1: replace when the best so far compares greater) and max (prefer = -1). */
function extreme(list: readonly Value[], name: string, prefer: number): Val {
  if (list.length === 0) return new CelError(`${name} called on empty list`);
  let best: Value = list[0]!;
  for (const v of list.slice(1)) if (compare(best, v) === prefer) best = v;
  return best;
}

const list = (v: Value): readonly Value[] => v as readonly Value[];

const overloads: OverloadDecl[][] = [[], [], [], []];
const impls: [string, Impl][] = [];
for (const [name, t] of COMPARABLE) {
  overloads[0]!.push(memberOverload(`list_${name}_is_sorted_bool`, [listType(t)], BoolType));
  overloads[1]!.push(memberOverload(`list_${name}_max_${name}`, [listType(t)], t));
  overloads[2]!.push(memberOverload(`list_${name}_min_${name}`, [listType(t)], t));
  impls.push([`list_${name}_is_sorted_bool`, ([l]) => isSorted(list(l!))]);
  impls.push([`list_${name}_max_${name}`, ([l]) => extreme(list(l!), 'max', -1)]);
  impls.push([`list_${name}_min_${name}`, ([l]) => extreme(list(l!), 'min', 1)]);
}
for (const [name, t, zero] of SUMMABLE) {
  overloads[3]!.push(memberOverload(`list_${name}_sum_${name}`, [listType(t)], t));
  impls.push([`list_${name}_sum_${name}`, ([l]) => sum(list(l!), zero)]);
}
impls.push(['list_a_index_of_int', ([l, x]) => BigInt(list(l!).findIndex((v) => equals(v, x!) === true))]);
impls.push(['list_a_last_index_of_int', ([l, x]) => BigInt(list(l!).findLastIndex((v) => equals(v, x!) === true))]);

const A = typeParam('A');

export const LISTS_LIBRARY: KubeLibrary = {
  functions: [
    func('isSorted', ...overloads[0]!),
    func('max', ...overloads[1]!),
    func('min', ...overloads[2]!),
    func('sum', ...overloads[3]!),
    func('indexOf', memberOverload('list_a_index_of_int', [listType(A), A], IntType)),
    func('lastIndexOf', memberOverload('list_a_last_index_of_int', [listType(A), A], IntType)),
  ],
  impls: new Map(impls),
};
