// The evaluator (cel/eval.ts): the semantics cel-go's interpreter has, as tables, and its runtime
// cost meter against the figures of cel-go's interpreter/runtimecost_test.go.
import { describe, expect, it } from 'vitest';
import { parseJsonExact } from '../../../apimachinery/json-parse.js';
import { check, KUBE_CHECKER_OPTIONS, standardEnv } from '../../../cel/checker.js';
import { TWO_VAR_COMPREHENSION_FUNCTIONS } from '../../../cel/comprehensions.js';
import { type FunctionDecl, func, memberOverload, overload, variable } from '../../../cel/decls.js';
import {
  activation,
  COST_LIMIT_EXCEEDED,
  type EvalResult,
  KUBE_PROGRAM_OPTIONS,
  Library,
  program,
  ProgramError,
  type ProgramOptions,
} from '../../../cel/eval.js';
import type { Impl } from '../../../cel/functions.js';
import { KUBE_PARSER_OPTIONS, parse } from '../../../cel/parser.js';
import { regexCounters } from '../../../cel/regex.js';
import { Source } from '../../../cel/source.js';
import { DynType, IntType, listType, mapType, StringType, type Type } from '../../../cel/types.js';
import {
  CelError,
  compareBytes,
  Duration,
  fromJson,
  type JsonValue,
  MapValue,
  OptionalValue,
  Timestamp,
  TypeValue,
  Uint,
  type Value,
} from '../../../cel/values.js';

interface Run {
  vars?: Record<string, Value>;
  types?: Record<string, Type>;
  /** Evaluate the parsed AST, without a type check. */
  unchecked?: boolean;
  options?: ProgramOptions;
  /** Declarations beyond the standard environment's, for the check. */
  functions?: readonly FunctionDecl[];
}

function run(src: string, r: Run = {}): EvalResult {
  const parsed = parse(src, KUBE_PARSER_OPTIONS);
  expect(parsed.issues.errors, src).toEqual([]);
  const vars = r.vars ?? {};
  if (r.unchecked) return program(parsed.ast, r.options).eval(activation(vars));
  const env = standardEnv(KUBE_CHECKER_OPTIONS).addFunctions(
    ...TWO_VAR_COMPREHENSION_FUNCTIONS,
    ...(r.functions ?? []),
  );
  for (const name of Object.keys(vars)) env.addIdents(variable(name, r.types?.[name] ?? DynType));
  const checked = check(parsed.ast, new Source(src), env);
  expect(checked.issues.toDisplayString(), src).toBe('');
  return program(checked.ast, r.options).eval(activation(vars));
}

const value = (src: string, r?: Run): Value => {
  const v = run(src, r).value;
  if (v instanceof CelError) throw new Error(`${src}: ${v.message}`);
  return v;
};
const error = (src: string, r?: Run): string => {
  const v = run(src, r).value;
  expect(v, src).toBeInstanceOf(CelError);
  return (v as CelError).message;
};

describe('values and operators', () => {
  it.each([
    ['9223372036854775807 + 1', 'integer overflow'],
    ['-9223372036854775808 - 1', 'integer overflow'],
    ['-(-9223372036854775807 - 1)', 'integer overflow'],
    ['(-9223372036854775807 - 1) / -1', 'integer overflow'],
    ['4611686018427387904 * 2', 'integer overflow'],
    ['18446744073709551615u + 1u', 'unsigned integer overflow'],
    ['0u - 1u', 'unsigned integer overflow'],
    ['1 / 0', 'division by zero'],
    ['1 % 0', 'modulus by zero'],
    ['int(9223372036854775807.0)', 'integer overflow'],
    ['uint(-1)', 'unsigned integer overflow'],
    // cel-go's String.ConvertToType: whatever strconv said, this.
    ["int('9223372036854775808')", "type conversion error from 'string' to 'int'"],
    ["uint('+1')", "type conversion error from 'string' to 'uint'"],
    ["bool('yes')", "type conversion error from 'string' to 'bool'"],
    ["double('1e400')", "type conversion error from 'string' to 'double'"],
    ['[1, 2][2]', 'index out of bounds: 2'],
    ["{'a': 1}['b']", 'no such key: b'],
    // cel-go's refQualify on a value with neither fields nor elements.
    ['dyn(1).x', 'no such key: x'],
    ["dyn('abc')[0]", 'no such key: 0'],
    ['dyn(null).x', 'no such key: x'],
    ['has(dyn([1]).x)', "unsupported index type 'string' in list"],
    ['optional.none().value()', 'optional.none() dereference'],
    ["timestamp('10000-01-01T00:00:00Z')", "type conversion error from 'string' to 'google.protobuf.Timestamp'"],
    ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", 'timestamp overflow'],
    ["duration('1x')", "type conversion error from 'string' to 'google.protobuf.Duration'"],
    ["'a'.matches('(')", 'error parsing regexp: missing closing ): `(`'],
  ])('%s is the error %j', (src, msg) => {
    expect(error(src)).toBe(msg);
  });

  it('keeps int64 and uint64 exact at their edges', () => {
    expect(value('9223372036854775807')).toBe(9223372036854775807n);
    expect(value('-9223372036854775807 - 1')).toBe(-9223372036854775808n);
    expect(value('18446744073709551615u')).toEqual(new Uint(18446744073709551615n));
    expect(value('9223372036854775806 + 1')).toBe(9223372036854775807n);
  });

  it('compares numbers across types by value', () => {
    expect(value('1 == 1.0', { unchecked: true })).toBe(true);
    expect(value('dyn(1) == 1.0')).toBe(true);
    expect(value('dyn(1u) == 1')).toBe(true);
    expect(value('1 < 1.5 && 2u > 1 && 1.0 <= 1u')).toBe(true);
    expect(value("[1, 'a'] == [1, 'a']")).toBe(true);
    expect(value("[1, 'a'] == [1.0, 'a']", { unchecked: true })).toBe(true);
    expect(value("{1: 'a'}[1u]", { unchecked: true })).toBe('a');
    expect(value("{1: 'a'}[dyn(1u)]")).toBe('a');
    expect(value("{1u: 'a'}[dyn(1.0)]")).toBe('a');
    expect(value('dyn(1u) in [1, 2]')).toBe(true);
    expect(value("dyn('a') == 1")).toBe(false);
    expect(error('dyn(0.0/0.0) < 1.0')).toBe('NaN values cannot be ordered');
  });

  it('absorbs errors in && and || in either order, and ?: evaluates one branch', () => {
    expect(value('false && (1/0 == 1)')).toBe(false);
    expect(value('(1/0 == 1) && false')).toBe(false);
    expect(value('true || (1/0 == 1)')).toBe(true);
    expect(value('(1/0 == 1) || true')).toBe(true);
    expect(error('(1/0 == 1) || false')).toBe('division by zero');
    expect(error('true && (1/0 == 1)')).toBe('division by zero');
    expect(value('true ? 1 : 1/0')).toBe(1n);
    expect(value('[1, 0].exists(x, 1/x == 1)')).toBe(true);
    expect(value('[0, 1].exists(x, 1/x == 1)')).toBe(true);
    expect(error('[0].all(x, 1/x == 1)')).toBe('division by zero');
  });

  it('dispatches dyn arguments at run time', () => {
    expect(value('size(x)', { vars: { x: 'héllo' } })).toBe(5n);
    expect(value('size(x)', { vars: { x: [1n, 2n] } })).toBe(2n);
    expect(value('x + y', { vars: { x: 1n, y: 2n } })).toBe(3n);
    expect(value('x + y', { vars: { x: 'a', y: 'b' } })).toBe('ab');
    expect(error('x + y', { vars: { x: 'a', y: 1n } })).toBe('no such overload');
    expect(error("x.startsWith('a')", { vars: { x: 1n } })).toBe('no such overload');
    expect(error('x && true', { vars: { x: 1n } })).toBe('no such overload');
  });

  it('evaluates without a check', () => {
    expect(value("size('abc') + 1", { unchecked: true })).toBe(4n);
    expect(value('a.b.c', { unchecked: true, vars: { 'a.b.c': 3n } })).toBe(3n);
    expect(value('optional.of(1).value()', { unchecked: true })).toBe(1n);
    expect(value('type(1) == int && type(int) == type', { unchecked: true })).toBe(true);
    expect(error('x', { unchecked: true })).toBe('no such attribute(s): x');
  });
});

describe('strings, bytes and regexes', () => {
  it('counts code points and converts with cel-go texts', () => {
    expect(value("size('😀a')")).toBe(2n);
    expect(value("'😀' > '\uffff'")).toBe(true);
    expect(error("string(b'\\xff')")).toBe('invalid UTF-8 in bytes, cannot convert to string');
    expect(value('string(1.0e6)')).toBe('1e+06');
    expect(value('string(123456.0)')).toBe('123456');
    expect(value('string(0.0001)')).toBe('0.0001');
    expect(value('string(0.00001)')).toBe('1e-05');
    expect(value("bool('True') && !bool('f')")).toBe(true);
  });

  // RE2 has no backtracking to go catastrophic: the matches run through re2js (the project's
  // cel/regex.ts, each a counted engine run), and a backreference, which only a backtracking engine
  // can offer, is refused with Go's text.
  it('matches with RE2: a catastrophic pattern for backtracking engines, one engine run each; no backreferences', () => {
    const before = regexCounters.runs;
    expect(value(`'${'a'.repeat(28)}!'.matches('^(a+)+$')`)).toBe(false);
    expect(value(`s.matches('^(a+)+$')`, { vars: { s: `${'a'.repeat(10_000)}!` } })).toBe(false);
    expect(regexCounters.runs - before).toBe(2);
    expect(error(String.raw`'aa'.matches('(a)\\1')`)).toBe('error parsing regexp: invalid escape sequence: `\\1`');
  });
});

describe('timestamps and durations', () => {
  it('keeps nanoseconds', () => {
    const t = value("timestamp('2023-01-01T00:00:00.123456789Z')");
    expect(t).toEqual(new Timestamp(1672531200123456789n));
    expect(value("string(timestamp('2023-01-01T00:00:00.123456789Z'))")).toBe('2023-01-01T00:00:00.123456789Z');
    expect(value("timestamp('2023-01-01T00:00:00.123456789Z') - timestamp('2023-01-01T00:00:00Z')")).toEqual(
      new Duration(123456789n),
    );
    expect(value("timestamp('2023-01-01T02:00:00+02:00') == timestamp('2023-01-01T00:00:00Z')")).toBe(true);
  });

  it('parses Go durations', () => {
    expect(value("duration('1h1.5s')")).toEqual(new Duration(3601_500_000_000n));
    expect(value("string(duration('1h1.5s'))")).toBe('3601.5s');
    expect(value("duration('-1.5us')")).toEqual(new Duration(-1500n));
    expect(value("string(duration('1ns'))")).toBe('0.000000001s');
    expect(value("duration('2562047h47m16.854775807s')")).toEqual(new Duration(9223372036854775807n));
    expect(error("duration('2562047h47m16.854775808s')")).toBe(
      "type conversion error from 'string' to 'google.protobuf.Duration'",
    );
    expect(error("duration('2562047h') * 2", { unchecked: true })).toBe('no such overload');
    expect(error("duration('2562047h') + duration('2562047h')")).toBe('duration overflow');
  });

  it('reads civil fields in a zone', () => {
    const t = "timestamp('2023-12-31T23:30:00.5Z')";
    expect(value(`${t}.getFullYear()`)).toBe(2023n);
    expect(value(`${t}.getFullYear('+01:00')`)).toBe(2024n);
    expect(value(`${t}.getMonth('Europe/Paris')`)).toBe(0n);
    expect(value(`${t}.getDayOfYear()`)).toBe(364n);
    expect(value(`${t}.getDate('America/Los_Angeles')`)).toBe(31n);
    expect(value(`${t}.getHours('America/Los_Angeles')`)).toBe(15n);
    expect(value(`${t}.getMinutes('-02:30')`)).toBe(0n);
    expect(value(`${t}.getMilliseconds()`)).toBe(500n);
    expect(value(`${t}.getDayOfWeek()`)).toBe(0n);
    expect(error(`${t}.getHours('Mars/Olympus')`)).toBe('unknown time zone Mars/Olympus');
    expect(value("duration('1h30m').getMinutes()")).toBe(90n);
  });
});

describe('aggregates, comprehensions, optionals', () => {
  it('builds and reads lists and maps', () => {
    expect(error("{'a': 1, 'a': 2}")).toBe('Failed with repeated key');
    expect(value("has({'a': 1}.a) && !has({'a': 1}.b)")).toBe(true);
    expect(value("'a' in {'a': 1} && 2 in [1, 2]")).toBe(true);
    expect(value('[1, 2, 3].map(x, x * 2).filter(x, x > 2)')).toEqual([4n, 6n]);
    expect(value('[1, 2, 3].exists_one(x, x > 2)')).toBe(true);
    expect(value("{'a': 1, 'b': 2}.transformMap(k, v, v + 1)")).toEqual(value("{'a': 2, 'b': 3}"));
    expect(value('[10, 20].all(i, v, v == (i + 1) * 10)')).toBe(true);
    expect(value('[1, 2].transformList(i, v, i * v)')).toEqual([0n, 2n]);
  });

  it('leaves a loop result unshared with the next evaluation', () => {
    const parsed = parse('[1, 2].map(x, x)', KUBE_PARSER_OPTIONS).ast;
    const p = program(parsed);
    const first = p.eval(activation({})).value;
    const second = p.eval(activation({})).value;
    expect(first).toEqual([1n, 2n]);
    expect(second).toEqual([1n, 2n]);
    expect(first).not.toBe(second);
  });

  it('selects optionally and chains', () => {
    const m = value("{'a': {'b': 1}}");
    expect(value('m.?a.?b.orValue(0)', { vars: { m } })).toBe(1n);
    expect(value('m.?x.?b.orValue(0)', { vars: { m } })).toBe(0n);
    expect(value('m.?a.b', { vars: { m } })).toEqual(OptionalValue.of(1n));
    expect(value('m.?a.c', { vars: { m } })).toBe(OptionalValue.NONE);
    expect(value('[1, 2][?5].or(optional.of(3)).value()')).toBe(3n);
    expect(value('[?optional.none(), ?optional.of(1)]')).toEqual([1n]);
    expect(value("{?'a': optional.none(), 'b': 2}.size()")).toBe(1n);
    expect(value('optional.ofNonZeroValue(0).hasValue()')).toBe(false);
    expect(value('type(optional.none())')).toBe(TypeValue.of('optional_type'));
  });
});

describe('bytes, value ranges and the optional library', () => {
  it.each([
    ["b'a' < b'b'", true],
    ["b'abc' < b'abc'", false],
    ["b'' < b' '", true],
    ["b'\\xff' > b'\\x01\\x02'", true],
    ["b'ab' <= b'ab'", true],
    ["b'ab' >= b'abc'", false],
  ])('%s is %s', (expr, want) => {
    expect(value(expr)).toBe(want);
  });

  it('orders bytes as unsigned octets, shorter first on a common prefix', () => {
    expect(compareBytes(new Uint8Array([0x80]), new Uint8Array([0x7f]))).toBeGreaterThan(0);
    expect(compareBytes(new Uint8Array([1]), new Uint8Array([1, 0]))).toBeLessThan(0);
    expect(compareBytes(new Uint8Array([]), new Uint8Array([]))).toBe(0);
  });

  it('keeps equality of numbers inside a comprehension over an empty list unambiguous', () => {
    expect(value('[].exists(e, e == 2)')).toBe(false);
    expect(value('x.exists(e, e == 2)', { vars: { x: [1n, 2n] } })).toBe(true);
    expect(value('x == 2', { vars: { x: 2n } })).toBe(true);
  });

  it.each([
    ['-(-9223372036854775808)', 'integer overflow'],
    ['(-9223372036854775808) / -1', 'integer overflow'],
    ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", 'timestamp overflow'],
    ["timestamp('0001-01-01T00:00:00Z') - duration('1s')", 'timestamp overflow'],
    ["duration('5000000000s') + duration('5000000000s')", 'duration overflow'],
    ["timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')", 'duration overflow'],
  ])('%s: %s', (expr, message) => {
    expect(error(expr)).toBe(message);
  });

  it('overflows a variable as a literal', () => {
    expect(error('x * 2', { vars: { x: 1n << 62n }, types: { x: IntType } })).toBe('integer overflow');
  });

  it('accepts the extremes themselves', () => {
    expect(value('-9223372036854775808')).toBe(-(1n << 63n));
    expect(value("timestamp('9999-12-31T23:59:59Z') - duration('1s') > timestamp('0001-01-01T00:00:00Z')")).toBe(true);
  });

  it.each([
    ['optional.ofNonZeroValue(0).hasValue()', false],
    ["optional.ofNonZeroValue('').hasValue()", false],
    ['optional.ofNonZeroValue([]).hasValue()', false],
    ['optional.ofNonZeroValue({}).hasValue()', false],
    ['optional.ofNonZeroValue(null).hasValue()', false],
    ["optional.ofNonZeroValue(duration('0s')).hasValue()", false],
    ['optional.ofNonZeroValue(42).value() == 42', true],
    ['optional.none() == optional.none()', true],
    ['optional.of(1) == optional.none()', false],
    ['optional.of(1) == optional.of(1)', true],
    ['optional.of(1) != optional.of(2)', true],
    ['optional.of(42).optMap(y, y + 1).value() == 43', true],
    ['optional.none().optMap(y, y + 1).hasValue()', false],
    ["{'key': {'subkey': 'v'}}.?key.optFlatMap(k, k.?subkey).value() == 'v'", true],
    ["{'key': {}}.?key.optFlatMap(k, k.?subkey).hasValue()", false],
    ['{}.?key.optFlatMap(k, k.?subkey).hasValue()', false],
    ['optional.none().optFlatMap(k, k.?subkey).hasValue()', false],
  ])('%s is %s', (expr, want) => {
    expect(value(expr)).toBe(want);
  });

  it('binds the variable of optMap for a typed receiver', () => {
    const x = value("{'a': 4}");
    const types = { x: mapType(StringType, IntType) };
    expect(value('x.?a.optMap(v, v * 2).orValue(0)', { vars: { x }, types })).toBe(8n);
    expect(value('x.?b.optMap(v, v * 2).orValue(0)', { vars: { x }, types })).toBe(0n);
  });
});

describe('JSON values', () => {
  it('maps int64-exact JSON onto CEL without losing precision', () => {
    const doc = parseJsonExact('{"big": 9223372036854775807, "small": 3, "f": 1.5, "s": "x", "l": [1, null, true]}', {
      int64: true,
    }).value as JsonValue;
    const self = fromJson(doc);
    expect(value('self.big == 9223372036854775807 && self.big - 1 == 9223372036854775806', { vars: { self } })).toBe(
      true,
    );
    expect(value('self.small + 1 == 4 && self.f == 1.5 && self.l[1] == null && self.l[2]', { vars: { self } })).toBe(
      true,
    );
    expect(error('self.big + 1', { vars: { self } })).toBe('integer overflow');
    expect(value('type(self.small) == int && type(self.f) == double', { vars: { self } })).toBe(true);
  });
});

describe('runtime cost (cel-go interpreter/runtimecost_test.go figures)', () => {
  const cost = (src: string, r: Run = {}): number => run(src, r).cost;
  const str = (n: number): string => 'x'.repeat(n);

  it.each([
    ['"Hello World!"', 0, {}],
    ['input', 1, { vars: { input: [1n, 2n] } }],
    ["input['key']", 2, { vars: { input: value("{'key': 'v'}") } }],
    ['input[0]', 2, { vars: { input: ['v'] } }],
    ["input['ke' + 'y']", 3, { vars: { input: value("{'key': 'v'}") } }],
    ['input[3-3]', 3, { vars: { input: ['v'] } }],
    ['input.getFullYear()', 2, { vars: { input: new Timestamp(0n) } }],
    ['[1, 2, 3]', 10, {}],
    ["{'a': 1, 'b': 2, 'c': 3}", 30, {}],
    ['input.all(x, true)', 2, { vars: { input: [] } }],
    ['[1, 2, 3].all(x, true)', 20, {}],
    ["input.matches('[0-9]')", 103, { vars: { input: str(500) } }],
    ["'123'.matches('[0-9]')", 2, {}],
    ['false || false', 0, {}],
    ['true && false', 0, {}],
    ['a || b || c || d', 4, { vars: { a: false, b: false, c: false, d: false } }],
    ['1 < 2', 1, {}],
    ['2 in [1, 2, 3]', 13, {}],
    ['1 + 1', 1, {}],
    ['true ? 1 : 2', 0, {}],
    ['size("123")', 1, {}],
    ["'12345678901234567890' == '123456789012345678901234567890'", 2, {}],
    ['string(input)', 51, { vars: { input: new Uint8Array(500).fill(0x61) } }],
    ['bytes(input)', 51, { vars: { input: str(500) } }],
    ['input.contains(arg1)', 2502, { vars: { input: str(500), arg1: str(500) } }],
    ['input.startsWith(arg1)', 3, { vars: { input: 'idc', arg1: str(500) } }],
    ['input.size()', 2, { vars: { input: '500' } }],
    ['(x > 2 ? input1 : input2).all(y, true)', 6, { vars: { x: 1n, input1: [1n], input2: [1n] } }],
    ['true ? false : 1 > 3', 0, {}],
    ['false ? false : 1 > 3', 1, {}],
    ['input.all(k, input[k].all(x, true))', 2, { vars: { input: new MapValue() } }],
    ['(list1 + list2).all(x, true)', 4, { vars: { list1: [], list2: [] } }],
    ['"abcdefg".contains(str1 + str2)', 6, { vars: { str1: 'val1', str2: 'val2222222' } }],
    ['(1 > 2 ? 5 : 3) > 1', 2, {}],
    ['(1 > 2 || 2 > 1) == true', 3, {}],
    ["[{'k1': 1}, {'k2': 2}].all(x, true)", 77, {}],
  ] as [string, number, Run][])('%s costs %d', (src, want, r) => {
    expect(cost(src, r)).toBe(want);
  });

  it.each([
    // 1 for x, then ceil(min(size(x), size(constant)) × 0.1), sizes in code points.
    ["x == ''", 'abc', 1, false],
    ["x == 'abc'", '', 1, false],
    ["x == 'abc'", 'abc', 2, true],
    ["x != 'abc'", 'x'.repeat(30), 2, true],
    ["x != 'RequestMirror'", 'URLRewrite', 2, true],
    ["x == 'RequestMirror'", 'x'.repeat(30), 3, false],
    ["x == 'RequestMirror'", '😀'.repeat(12), 3, false],
    ["x == 'RequestMirror'", '😀'.repeat(30), 3, false],
    ["x == 'a'", 7n, 2, false],
    ["x != 'a'", [1n, 2n], 2, true],
    ["!(x == 'a')", 'a', 3, false],
    ["'RequestMirror' == x", 'x'.repeat(30), 3, false],
    ["'' != x", 'abc', 1, true],
    ["'abc' == x", 'abc', 2, true],
    // Two variables: the shorter's traversal; contains: the receiver's times the argument's.
    ['x == y', 'abc', 3, false],
    ['x != y', '', 2, true],
    ['x == x', 'x'.repeat(30), 5, true],
    ["x.contains('/./')", 'a/./b', 2, true],
    ["x.contains('/./')", '', 1, false],
    ["x.contains('/./')", 'x'.repeat(30), 4, false],
    [`x.contains('${'y'.repeat(30)}')`, 'y'.repeat(5), 4, false],
  ] as [string, Value, number, boolean][])('%s, x = %s, costs %d and is %s', (src, x, want, result) => {
    expect(run(src, { vars: { x, y: 'x'.repeat(12) } })).toMatchObject({ cost: want, value: result });
  });

  it.each([
    // Ints compared, lists sized and indexed by a constant (declared, one overload; dyn, several):
    // the same values, errors and costs whatever the kinds.
    ['x > 0', 2n, IntType, true, 2],
    ['x >= y', 2n, IntType, false, 3],
    ['x > 0', 2n, DynType, true, 2],
    ['x < 2', 1.5, DynType, true, 2],
    ['x <= 2', 'a', DynType, 'no such overload', 2],
    ['size(x) == 2', [1n, 2n], listType(IntType), true, 3],
    ['x.size()', [1n], listType(IntType), 1n, 2],
    ['size(x)', 'ab😀', DynType, 3n, 2],
    ['x[0]', ['a'], listType(StringType), 'a', 2],
    ['x[1]', ['a'], listType(StringType), 'index out of bounds: 1', 2],
    ['x[0]', value("{0: 'z'}"), DynType, 'z', 2],
    ['x[0]', 'abc', DynType, 'no such key: 0', 2],
  ] as [string, Value, Type, Value, number][])('%s, x = %s: %s, cost %d', (src, x, type, want, cost) => {
    const r = run(src, { vars: { x, y: 3n }, types: { x: type, y: IntType } });
    expect(r.value instanceof CelError ? r.value.message : r.value).toEqual(want);
    expect(r.cost).toBe(cost);
  });

  it('charges has() as cel-go does, and not at all with kube settings', () => {
    const input = value("{'a': {'b': 1}}");
    expect(cost('has(input.a)', { vars: { input } })).toBe(2);
    expect(cost('has(input.a.b)', { vars: { input } })).toBe(3);
    expect(cost('has(input.a)', { vars: { input }, options: KUBE_PROGRAM_OPTIONS })).toBe(1);
    expect(cost('has(input.a.b)', { vars: { input }, options: KUBE_PROGRAM_OPTIONS })).toBe(2);
  });

  it('stops at the limit: at the limit passes, one below is cancelled', () => {
    const vars = { str1: 'val1', str2: 'val2222222' };
    expect(run('"abcdefg".contains(str1 + str2)', { vars, options: { costLimit: 6 } })).toMatchObject({
      value: false,
      cost: 6,
      exceeded: false,
    });
    const over = run('"abcdefg".contains(str1 + str2)', { vars, options: { costLimit: 5 } });
    expect(over.exceeded).toBe(true);
    expect((over.value as CelError).message).toBe(COST_LIMIT_EXCEEDED);
  });

  it('stops a 3-nested comprehension over 200 items at the limit, early', () => {
    const items = Array.from({ length: 200 }, (_, i) => BigInt(i));
    const r = run('items.all(a, items.all(b, items.all(c, a + b + c >= 0)))', {
      vars: { items },
      types: { items: listType(IntType) },
      options: { costLimit: 1_000_000 },
    });
    expect(r.exceeded).toBe(true);
    expect(r.cost).toBeGreaterThan(1_000_000);
    expect(r.cost).toBeLessThan(1_000_100);
  });

  it('does no work past the limit: the innermost call of that comprehension runs no more often than it was charged', () => {
    // A counted call in the innermost loop: a full evaluation would make 200³ = 8,000,000 of them.
    // Each iteration is charged at least 7 (a, b and c, the two additions, the call, the
    // comparison), so a cancelled evaluation makes no more than a seventh of the cost it was
    // charged (about one per 10 here), and none after.
    const items = Array.from({ length: 200 }, (_, i) => BigInt(i));
    let calls = 0;
    const functions = [func('seen', overload('seen_int', [IntType], IntType))];
    const library = new Library(
      functions,
      new Map<string, Impl>([
        [
          'seen_int',
          (a) => {
            calls++;
            return a[0] as bigint;
          },
        ],
      ]),
    );
    const r = run('items.all(a, items.all(b, items.all(c, seen(a + b + c) >= 0)))', {
      vars: { items },
      types: { items: listType(IntType) },
      options: { costLimit: 1_000_000, library },
      functions,
    });
    expect(r.exceeded).toBe(true);
    expect((r.value as CelError).message).toBe(COST_LIMIT_EXCEEDED);
    expect(r.cost).toBeLessThan(1_000_100);
    expect(calls).toBeGreaterThan(90_000);
    expect(calls).toBeLessThanOrEqual(r.cost / 7);
  });

  it('lets a library price its calls and charge as it works', () => {
    const impls = new Map<string, Impl>([
      ['string_twice', (a) => (a[0] as string).repeat(2)],
      [
        'list_sum',
        (a, ctx) => {
          let s = 0n;
          for (const x of a[0] as readonly Value[]) {
            ctx.charge(1);
            s += x as bigint;
          }
          return s;
        },
      ],
    ]);
    const functions = [
      func('twice', memberOverload('string_twice', [StringType], StringType)),
      func('sum', memberOverload('list_sum', [listType(IntType)], IntType)),
    ];
    const options: ProgramOptions = {
      library: new Library(functions, impls),
      callCost: (_f, id) => (id === 'string_twice' ? (args) => 2 * (args[0] as string).length : undefined),
    };
    expect(run("'abc'.twice()", { options, functions })).toMatchObject({ value: 'abcabc', cost: 6 });
    expect(run('[1, 2, 3].sum()', { options, functions })).toMatchObject({ value: 6n, cost: 10 + 3 + 1 });
    expect(run('[1, 2, 3].sum()', { options: { ...options, costLimit: 12 }, functions }).exceeded).toBe(true);
    expect(value("{'a': [1]}.a.sum()", { options, functions })).toBe(1n);
    expect(
      value('m.x.sum()', {
        options,
        functions,
        vars: { m: value("{'x': [4, 5]}") },
        types: { m: mapType(StringType, listType(IntType)) },
      }),
    ).toBe(9n);
    expect(value('[1, 2].sum()', { options, unchecked: true })).toBe(3n);
    expect(() => run('[1, 2].sum()', { functions })).toThrow("no implementation for overload 'list_sum' of 'sum'");
  });
});

describe("cel-go's OptOptimize (kube's programs): constants folded when the program is planned", () => {
  const kube = (r: Run = {}): Run => ({ ...r, options: KUBE_PROGRAM_OPTIONS });
  const cost = (src: string, r: Run = {}): number => run(src, kube(r)).cost;

  it.each([
    // Literals of constants are constants: free (interpreter/decorators.go maybeBuildListLiteral, maybeBuildMapLiteral).
    ['[1, 2, 3]', 0, {}],
    ["{'a': 1, 'b': [2]}", 0, {}],
    ['[1, 2, 3].all(x, true)', 10, {}],
    // The range and the accumulator's [] are free; each step still makes its one-element list (10 + 4).
    ['[1, 2].map(x, x * 2)', 29, {}],
    // An element that is not a constant keeps the literal (and its cost).
    ['[x, 2]', 11, { vars: { x: 1n } }],
    // `in` a constant list of primitives is a set lookup, free: only x is charged.
    ["x in ['Exact', 'PathPrefix']", 1, { vars: { x: 'Exact' } }],
    ['x in [[1], [2]]', 3, { vars: { x: [2n] } }],
    // Conversions of a constant are constants.
    ["duration('0s')", 0, {}],
    ["x > duration('1s')", 2, { vars: { x: new Duration(2_000_000_000n) } }],
  ] as [string, number, Run][])('%s costs %d', (src, want, r) => {
    expect(cost(src, r)).toBe(want);
  });

  it('keeps the values: a set lookup finds numbers across int, uint and double as cel-go adds them', () => {
    const v = (src: string, vars: Record<string, Value> = {}): Value => value(src, kube({ vars }));
    expect(v("x in ['Exact', 'PathPrefix']", { x: 'PathPrefix' })).toBe(true);
    expect(v("x in ['Exact', 'PathPrefix']", { x: 'Regex' })).toBe(false);
    expect(v('x in [1, 2]', { x: 2.0 })).toBe(true);
    expect(v('x in [1, 2]', { x: new Uint(1n) })).toBe(true);
    expect(v('x in [1.0, 2.5]', { x: 1n })).toBe(true);
    expect(v('x in [1.0, 2.5]', { x: 2n })).toBe(false);
    expect(v('x in [0.0]', { x: -0 })).toBe(true);
    expect(v("x in [double('NaN')]", { x: Number.NaN })).toBe(false);
    expect(v('x in [1, 2]', { x: 'a' })).toBe(false);
    // An empty list: false without evaluating x.
    expect(run('x.y in []', kube({ vars: { x: new MapValue() } }))).toMatchObject({ value: false, cost: 0 });
    expect(error('x.y in [1]', kube({ vars: { x: new MapValue() } }))).toBe('no such key: y');
  });

  it('refuses a program whose constant conversion fails, with the error the call gives', () => {
    const parsed = parse("int('x') == 1", KUBE_PARSER_OPTIONS);
    const checked = check(parsed.ast, new Source("int('x') == 1"), standardEnv(KUBE_CHECKER_OPTIONS));
    expect(() => program(checked.ast, KUBE_PROGRAM_OPTIONS)).toThrow(ProgramError);
    expect(() => program(checked.ast, KUBE_PROGRAM_OPTIONS)).toThrow("type conversion error from 'string' to 'int'");
    expect(error("int('x') == 1")).toBe("type conversion error from 'string' to 'int'");
  });
});

describe("has() on a value without fields: false, as cel-go's refQualify answers a presence test (kube leaves EnableErrorOnBadPresenceTest off)", () => {
  it.each(['has(dyn(1).x)', "has(dyn('abc').x)", 'has(dyn(null).x)', "has(dyn(timestamp('2024-01-01T00:00:00Z')).x)"])(
    '%s',
    (src) => expect(value(src)).toBe(false),
  );
});

describe('the generated function (Planner): no text of the expression is ever in its source', () => {
  // A CEL literal of quotes, a backslash, a comment's end, JavaScript's line terminators that
  // are not CEL's, a template's `${`, a backtick and a newline, and the string it denotes.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text a template would interpolate, on purpose
  const LITERAL = "'q\\'d\"b\\\\s*/ls\\u2028ps\\u2029t${k0}c`x\\n'";
  // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
  const TEXT = 'q\'d"b\\s*/ls\u2028ps\u2029t${k0}c`x\n';
  // Field and variable names that are the generated code's own (the context, constants,
  // temporaries, the constants array) or an object's.
  const NAMES = ['c', 'k0', 't0', 'K', 'x0', '__proto__', 'constructor'];
  const EXPR = [
    `m[${LITERAL}] == ${LITERAL}`,
    `${LITERAL} in m`,
    `{${LITERAL}: ${LITERAL}}[${LITERAL}] == ${LITERAL}`,
    `[${LITERAL}].exists(x, x == ${LITERAL})`,
    `${LITERAL}.size() == ${[...TEXT].length}`,
    // A raw U+2028 inside a literal, as the text of a rule may hold it.
    "'\u2028'.size() == 1",
    ...NAMES.map((n) => `m.${n} == '${n}' && has(m.${n})`),
    'c + k0 + t0 + K == 10',
    '[1].all(c, [2].exists(k0, [3].exists_one(t0, c + k0 + t0 + K == 10)))',
  ].join(' && ');
  const vars = (): Record<string, Value> => ({
    m: fromJson({ [TEXT]: TEXT, ...Object.fromEntries(NAMES.map((n) => [n, n])) }),
    c: 1n,
    k0: 2n,
    t0: 3n,
    K: 4n,
  });

  it.each([
    ['checked', false],
    ['unchecked', true],
  ])('evaluates hostile literals and names as what they denote (%s)', (_, unchecked) => {
    expect(value(EXPR, { vars: vars(), unchecked })).toBe(true);
    expect(value(LITERAL, { unchecked })).toBe(TEXT);
  });

  it('reads them from its constants', () => {
    const parsed = parse(EXPR, KUBE_PARSER_OPTIONS);
    const env = standardEnv(KUBE_CHECKER_OPTIONS).addIdents(...Object.keys(vars()).map((n) => variable(n, DynType)));
    const checked = check(parsed.ast, new Source(EXPR), env);
    expect(checked.issues.toDisplayString()).toBe('');
    for (const p of [program(checked.ast, KUBE_PROGRAM_OPTIONS), program(parsed.ast)]) {
      for (const piece of ["q'", '"b', '\\', '*/', '\u2028', '\u2029', '${', '`', '__proto__', 'constructor'])
        expect(p.source, JSON.stringify(piece)).not.toContain(piece);
      expect(p.eval(activation(vars())).value).toBe(true);
    }
  });
});
