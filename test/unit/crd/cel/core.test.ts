// Spec semantics added on top of the engine: bytes ordering, value ranges, and the optional
// library's ofNonZeroValue, equality and optMap/optFlatMap (crd/cel/core.ts, crd/cel/optionals.ts).
import { describe, expect, it } from 'vitest';
import { compileExpression } from '../../../../crd/cel/env.js';
import { compareBytes } from '../../../../crd/cel/core.js';

const run = (expr: string, vars: Record<string, string> = {}, bindings: Record<string, unknown> = {}): unknown =>
  compileExpression(expr, vars).evaluate(bindings);

describe('core-language overloads', () => {
  it.each([
    ["b'a' < b'b'", true],
    ["b'abc' < b'abc'", false],
    ["b'' < b' '", true],
    ["b'\\xff' > b'\\x01\\x02'", true],
    ["b'ab' <= b'ab'", true],
    ["b'ab' >= b'abc'", false],
  ])('%s is %s', (expr, want) => {
    expect(run(expr)).toBe(want);
  });

  it('orders bytes as unsigned octets, shorter first on a common prefix', () => {
    expect(compareBytes(new Uint8Array([0x80]), new Uint8Array([0x7f]))).toBeGreaterThan(0);
    expect(compareBytes(new Uint8Array([1]), new Uint8Array([1, 0]))).toBeLessThan(0);
    expect(compareBytes(new Uint8Array([]), new Uint8Array([]))).toBe(0);
  });

  it('keeps equality of numbers inside a comprehension over an empty list unambiguous', () => {
    expect(run('[].exists(e, e == 2)')).toBe(false);
    expect(run('x.exists(e, e == 2)', { x: 'list<dyn>' }, { x: [1n, 2n] })).toBe(true);
    expect(run('x == 2', { x: 'dyn' }, { x: 2n })).toBe(true);
  });
});

describe('value ranges', () => {
  it.each([
    ['-(-9223372036854775808)', 'integer overflow'],
    ['(-9223372036854775808) / -1', 'integer overflow'],
    ['9223372036854775807 + 1', 'integer overflow'],
    ['x * 2', 'integer overflow', { x: 'int' }, { x: 1n << 62n }],
    ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", 'timestamp out of range'],
    ["timestamp('0001-01-01T00:00:00Z') - duration('1s')", 'timestamp out of range'],
    ["duration('5000000000s') + duration('5000000000s')", 'duration out of range'],
    ["timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')", 'duration out of range'],
  ] as [string, string, Record<string, string>?, Record<string, unknown>?][])(
    '%s: %s',
    (expr, message, vars, bindings) => {
      expect(() => run(expr, vars, bindings)).toThrow(message);
    },
  );

  it('accepts the extremes themselves', () => {
    expect(run('-9223372036854775808')).toBe(-(1n << 63n));
    expect(run('9223372036854775807')).toBe((1n << 63n) - 1n);
    expect(run("timestamp('9999-12-31T23:59:59Z') - duration('1s') > timestamp('0001-01-01T00:00:00Z')")).toBe(true);
  });
});

describe('optional library', () => {
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
    expect(run(expr)).toBe(want);
  });

  it('types optMap by its body and rejects a non-optional optFlatMap body', () => {
    expect(compileExpression('optional.of(1).optMap(v, string(v))').type).toBe('optional<string>');
    expect(() => compileExpression('optional.of(1).optFlatMap(v, v + 1)')).toThrow(
      /must return an optional, got 'int'/,
    );
    expect(() => compileExpression('optional.of(1).optMap(1, 2)')).toThrow(/invalid variable argument/);
  });

  it('binds the variable for a schema-typed receiver', () => {
    expect(run('x.?a.optMap(v, v * 2).orValue(0)', { x: 'map<string, int>' }, { x: new Map([['a', 4n]]) })).toBe(8n);
    expect(run('x.?b.optMap(v, v * 2).orValue(0)', { x: 'map<string, int>' }, { x: new Map([['a', 4n]]) })).toBe(0n);
  });
});
