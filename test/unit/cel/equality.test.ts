// `==`, `!=`, `in`, sets.* and list `+` as kube 1.33 evaluates them: cel-go v0.23.2's values
// (types.Equal asks null first, then the left value's own Equal; baseList, baseMap, concatList,
// Optional) and kube's schema-typed ones (k8s.io/apiserver/pkg/cel/common/values.go:
// unstructuredList, its set and map lists, unstructuredMap). Each rule compiled by kube's
// environment and run on a document typed by a schema, against cel-go's result or error text.
import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../../apimachinery/json-parse.js';
import { activation, program } from '../../../cel/eval.js';
import { kubeEnvironment } from '../../../cel/kube/environment.js';
import { type CelSchema, ruleVariables, SchemaTypeProvider, schemaDeclType } from '../../../cel/kube/schema-types.js';
import { schemaValue } from '../../../cel/kube/schema-values.js';
import { CelError, type JsonValue, type Value } from '../../../cel/values.js';

const int: CelSchema = { type: 'integer' };
const item: CelSchema = { type: 'object', properties: { name: { type: 'string' }, port: int } };
const schema: CelSchema = {
  type: 'object',
  properties: {
    atomic: { type: 'array', items: int, 'x-kubernetes-list-type': 'atomic' },
    untyped: { type: 'array', items: int },
    set: { type: 'array', items: int, 'x-kubernetes-list-type': 'set' },
    ports: {
      type: 'array',
      items: item,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    },
    objects: { type: 'array', items: item },
    nullables: { type: 'array', items: { ...item, nullable: true } },
    obj: item,
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    emptyList: { type: 'array', items: int },
    emptyMap: { type: 'object', additionalProperties: int },
  },
};
const doc = JSON.stringify({
  atomic: [1, 2],
  untyped: [1, 2],
  set: [1, 2],
  ports: [
    { name: 'http', port: 80 },
    { name: 'https', port: 443 },
  ],
  objects: [{ name: 'a' }],
  nullables: [null],
  obj: { name: 'a' },
  labels: { app: 'x' },
  emptyList: [],
  emptyMap: {},
});

const env = kubeEnvironment('StoredExpressions');
const decl = schemaDeclType(schema, false, 'selfType0')!;
const checkerEnv = env.checkerEnv(new SchemaTypeProvider(decl)).addIdents(...ruleVariables(decl.type, false));
const self = schemaValue(parseJsonExact(doc, { int64: true }).value as JsonValue, schema);

function run(rule: string): Value | CelError {
  const compiled = env.compile(rule, checkerEnv);
  if (compiled.issues !== undefined) throw new Error(`${rule}: ${compiled.issues.toDisplayString()}`);
  return program(compiled.ast, env.programOptions).eval(activation({ self })).value;
}

/** A rule's result: its value, or `error: <cel-go's text>`. */
const outcome = (rule: string): unknown => {
  const v = run(rule);
  return v instanceof CelError ? `error: ${v.message}` : v;
};

const table = (cases: readonly (readonly [string, boolean | string])[]): void => {
  it.each(cases)('%s → %s', (rule, want) => expect(outcome(rule)).toEqual(want));
};

describe("a schema's list against another type (unstructuredList.Equal: no such overload)", () => {
  table([
    ['dyn(self.atomic) == 1', 'error: no such overload'],
    ['dyn(self.untyped) == 1', 'error: no such overload'],
    ['dyn(self.set) == 1', 'error: no such overload'],
    ["dyn(self.ports) == 'x'", 'error: no such overload'],
    ["dyn(self.atomic) == {'a': 1}", 'error: no such overload'],
    // evalNe: whatever is not true is unequal.
    ['dyn(self.atomic) != 1', true],
    // types.Equal settles null before any Equal is asked.
    ['dyn(self.atomic) == null', false],
    ['dyn(self.atomic) != null', true],
    ['null == dyn(self.atomic)', false],
    // The other way round, the int's own Equal answers.
    ['dyn(1) == dyn(self.atomic)', false],
  ]);
});

describe('a literal list or map against another type (baseList.Equal, baseMap.Equal: false)', () => {
  table([
    ['dyn([1]) == 1', false],
    ["dyn([1]) == {'a': 1}", false],
    ['dyn({1: 2}) == 1', false],
    ['dyn({1: 2}) == [1]', false],
    ["dyn({'a': 1}) == dyn(self.labels)", false],
  ]);

  it('[1] == 1 does not check', () => {
    const compiled = env.compile('[1] == 1', checkerEnv);
    expect(compiled.issues?.toDisplayString()).toBe(
      "ERROR: <input>:1:5: found no matching overload for '_==_' applied to '(list(int), int)'\n | [1] == 1\n | ....^",
    );
  });
});

describe('a map of the schema against another type (unstructuredMap.Equal)', () => {
  table([
    ['dyn(self.labels) == 1', 'error: no such overload'],
    ['dyn(self.obj) == [1]', 'error: no such overload'],
    ['dyn(self.obj) == null', false],
    ['self.obj == null', false],
    ['self.obj != null', true],
  ]);
});

describe("elements: a schema's list asks each its own Equal and stops at the first answer not true", () => {
  table([
    ['self.atomic == [1, 2]', true],
    ['self.atomic == [2, 1]', false],
    ['dyn(self.objects) == [1]', 'error: no such overload'],
    ['dyn(self.objects) == [dyn(1)]', 'error: no such overload'],
    ['self.nullables == [null]', true],
    ["dyn(self.nullables) == [{'name': 'a'}]", false],
    // A literal list's elements through types.Equal, only false stopping it: an error counts as equal.
    ['[dyn(self.atomic)] == [1]', true],
    ['[dyn(self.atomic)] == [[1, 2]]', true],
    ['[dyn(self.atomic)] == [[2, 1]]', false],
  ]);
});

describe('in and sets.*: a literal list asks the value sought, a schema list each element', () => {
  table([
    ['dyn(self.atomic) in [dyn(1), dyn([1, 2])]', true],
    ['dyn(self.atomic) in [dyn(1)]', false],
    ['1 in dyn(self.objects)', 'error: no such overload'],
    ['2 in self.atomic', true],
    ['3 in self.atomic', false],
    ['3 in self.set', false],
    ['sets.contains(dyn(self.objects), [dyn(1)])', 'error: no such overload'],
    ['sets.contains(self.atomic, [2, 1])', true],
    ['sets.equivalent(self.set, [2, 1, 1])', true],
    // setsIntersects asks the second list's Contains and counts only true.
    ['sets.intersects([dyn(1)], dyn(self.objects))', false],
  ]);
});

describe("a schema's map asked for a key of another type (unstructuredMap.Find: no such overload)", () => {
  table([
    ['dyn(1) in self.labels', 'error: no such overload'],
    ["'app' in self.labels", true],
    ["'web' in self.labels", false],
    ["dyn(self.labels)[dyn(1)] == 'x'", 'error: no such overload'],
    ['dyn(self.labels)[?dyn(1)] == optional.none()', 'error: no such overload'],
    // A literal map's Find finds nothing.
    ["dyn(1) in {'a': 1}", false],
    ["{'a': 1}[dyn(1)] == 1", 'error: no such key: 1'],
  ]);
});

describe("`+`: a schema's list adds by its list type, a literal one concatenates", () => {
  table([
    ['self.set + [3, 1, 3] == [1, 2, 3]', true],
    ['(self.set + [3, 1, 3]).size() == 3', true],
    ['self.atomic + [1] == [1, 2, 1]', true],
    ['(self.ports + self.ports).size() == 2 && self.ports + self.ports == self.ports', true],
    // The sum of a schema's list is still one: its Equal, not a literal's.
    ['dyn(self.atomic + [3]) == 1', 'error: no such overload'],
    ['dyn(self.set + [3]) == 1', 'error: no such overload'],
    // baseList.Add: an empty side gives the other list itself.
    ['dyn([] + self.atomic) == 1', 'error: no such overload'],
    ['dyn([3] + self.atomic) == 1', false],
    // concatList.Equal: an element's error is the answer when nothing is unequal.
    ['([dyn(self.atomic)] + [1]) == [1, 1]', 'error: no such overload'],
    ['([dyn(self.atomic)] + [1]) == [1, 2]', false],
    ['1 in ([dyn(2)] + dyn(self.objects))', 'error: no such overload'],
    ['1 in ([dyn(1)] + dyn(self.objects))', true],
    ['[1, 2].map(x, x) + [3] == [1, 2, 3]', true],
  ]);
});

describe("optionals (Optional.Equal: none equals none, values by the first one's own Equal)", () => {
  table([
    ['optional.of(null) == optional.of(null)', true],
    ['optional.none() == optional.none()', true],
    ['optional.none() == optional.of(null)', false],
    ['optional.of(null) == optional.none()', false],
    ['optional.of(1) == optional.of(dyn(1.0))', true],
    ['optional.of(null) == optional.of(dyn(1))', false],
    ['optional.of(dyn(1)) == optional.of(null)', false],
    ['optional.none() == null', false],
    ['optional.of(null) == null', false],
    ['null == optional.none()', false],
    ['optional.of(self.obj) == optional.of(null)', 'error: no such overload'],
    ['optional.of(dyn(self.atomic)) == optional.of(dyn(1))', 'error: no such overload'],
    ['optional.of(dyn(self.atomic)) == optional.of(dyn([1, 2]))', true],
    ["optional.of(quantity('1')) == optional.of(null)", 'error: no such overload'],
    ["[quantity('1')] == [null]", false],
    ['self.?obj == null', false],
  ]);
});

describe("optional.ofNonZeroValue: cel-go's Zeroer, which kube's schema values are not", () => {
  table([
    ['optional.ofNonZeroValue(self.emptyList).hasValue()', true],
    ['optional.ofNonZeroValue(self.emptyMap).hasValue()', true],
    ['optional.ofNonZeroValue(self.emptyList + []).hasValue()', true],
    ['optional.ofNonZeroValue([]).hasValue()', false],
    ['optional.ofNonZeroValue({}).hasValue()', false],
    ['optional.ofNonZeroValue([] + []).hasValue()', false],
    // Go's zero time is year 1, not the epoch (kube's validation_test.go has the first).
    ["optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00.000+00:00')) == optional.none()", true],
    ["optional.ofNonZeroValue(timestamp('1970-01-01T00:00:00Z')).hasValue()", true],
  ]);
});
