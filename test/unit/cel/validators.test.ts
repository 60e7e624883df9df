// The checks kube's environment runs once a rule has type-checked (cel/validators.ts, the strings
// library's format() check in cel/kube/strings-format.ts), through kubeEnvironment('StoredExpressions').compile:
// cel-go's own validator cases (cel/validator_test.go, ext/strings_test.go at v0.23.2, the
// release kube 1.33 builds with) and kube's, with cel-go's texts and positions.
import { describe, expect, it } from 'vitest';
import { outputType } from '../../../cel/checker.js';
import { variable } from '../../../cel/decls.js';
import { kubeEnvironment } from '../../../cel/kube/environment.js';
import { formatType, listType, StringType } from '../../../cel/types.js';

const kube = kubeEnvironment('StoredExpressions');

/** The compile's issues, or the output type when there are none. */
function compile(expr: string): string {
  const env = kube.checkerEnv().addIdents(variable('name', StringType), variable('names', listType(StringType)));
  const c = kube.compile(expr, env);
  return c.issues !== undefined ? c.issues.toDisplayString() : formatType(outputType(c.ast));
}

const at = (expr: string, column: number, message: string): string =>
  `ERROR: <input>:1:${column}: ${message}\n | ${expr}\n | ${'.'.repeat(column - 1)}^`;

describe('duration and timestamp literals', () => {
  it.each([
    ["duration('1')", 10],
    ["duration('1d')", 10],
    ["timestamp('1000-00-00T00:00:00Z')", 11],
    ["timestamp('1000-01-01T00:00:00ZZ')", 11],
    ['timestamp(-62135596801)', 11],
  ])('%s is refused', (expr, column) => {
    const fn = expr.slice(0, expr.indexOf('('));
    expect(compile(expr)).toBe(at(expr, column, `invalid ${fn} argument`));
  });

  it('reports on the line the literal is on', () => {
    expect(compile("duration('1us')\n < duration('1nns')")).toBe(
      "ERROR: <input>:2:13: invalid duration argument\n |  < duration('1nns')\n | ............^",
    );
  });

  it.each(["duration('2h3m4s5us')", "timestamp('1000-01-01T00:00:00Z')", 'timestamp(-62135596800)', 'duration(name)'])(
    '%s is checked no further',
    (expr) => {
      expect(compile(expr)).toMatch(/^(google\.protobuf\.Duration|google\.protobuf\.Timestamp|duration|timestamp)$/);
    },
  );
});

describe('regex literals (the first argument of matches)', () => {
  it.each([
    ["'hello'.matches('x++')", 17],
    ["'hello'.matches('(?<name%>el*)')", 17],
    ["'hello'.matches('??el*')", 17],
    // The global form's first argument is the string, which is what cel-go compiles.
    ["matches('(', 'a')", 9],
  ])('%s is refused', (expr, column) => {
    expect(compile(expr)).toBe(at(expr, column, 'invalid matches argument'));
  });

  it.each(["'hello'.matches('el*')", "'hello'.matches(name)", "matches('a', '(')"])('%s passes', (expr) => {
    expect(compile(expr)).toBe('bool');
  });
});

describe('homogeneous list and map literals', () => {
  it.each([
    ["name in ['hello', 0]", 19, "expected type 'string' but found 'int'"],
    ["{'hello':'world', 1:'!'}", 19, "expected type 'string' but found 'int'"],
    ["name in {'hello':'world', 'goodbye':true}", 37, "expected type 'string' but found 'bool'"],
    ["[[1], ['a']] == []", 7, "expected type 'list(int)' but found 'list(string)'"],
  ])('%s is refused', (expr, column, message) => {
    expect(compile(expr)).toBe(at(expr, column, message));
  });

  it.each([
    "name in ['hello', 'world']",
    "name in ['hello', ?optional.ofNonZeroValue('')]",
    "name in [?optional.ofNonZeroValue(''), 'hello', ?optional.of('')]",
    "name in {'hello': false, 'world': true}",
    "{'hello': false, ?'world': optional.ofNonZeroValue(true)}.size() == 1",
    "{?'hello': optional.ofNonZeroValue(false), 'world': true}.size() == 1",
    // format()'s arguments, at any depth, are exempt (the strings library's Configure).
    "'%s %d'.format([name, 1]) != ''",
    "'%s'.format([[name, 1]]) != ''",
  ])('%s passes', (expr) => {
    expect(compile(expr)).toBe('bool');
  });
});

describe("format() calls on a literal format string with a list literal (the strings library's check)", () => {
  it.each([
    // A call is at its '(' (cel-go's position for calls).
    [
      "'%d'.format([duration('30m2s')])",
      22,
      'decimal clause can only be used on integers, was given google.protobuf.Duration',
    ],
    ["'octal: %o'.format(['a string'])", 21, 'octal clause can only be used on integers, was given string'],
    [
      "'double is %x'.format([0.5])",
      24,
      'only integers, byte buffers, and strings can be formatted as hex, was given double',
    ],
    ["'null: %e'.format([null])", 20, 'scientific clause can only be used on doubles, was given null_type'],
    ["'null: %f'.format([null])", 20, 'fixed-point clause can only be used on doubles, was given null_type'],
    ["'null: %b'.format([null])", 20, 'only integers and bools can be formatted as binary, was given null_type'],
  ])('%s is refused at the argument', (expr, column, message) => {
    expect(compile(expr)).toBe(at(expr, column, `error during formatting: ${message}`));
  });

  it.each([
    ["'double is %E'.format([0.5])", 22, 'could not parse formatting clause: unrecognized formatting clause "E"'],
    ["'%s %s'.format(['abc'])", 15, 'index 1 out of range'],
    ["'%s %s'.format(['abc', 'def', 'ghi'])", 15, 'too many arguments supplied to string.format (expected 2, got 3)'],
    ["'filler %'.format([])", 18, 'unexpected end of string'],
  ])('%s is refused at the call', (expr, column, message) => {
    expect(compile(expr)).toBe(at(expr, column, message));
  });

  it.each([
    "'%s: %d, %f, %e, %b, %x, %o'.format(['a', 1, 1.5, 2.5, true, b'x', 7u])",
    "'%s %s %s %s %s'.format([[1, 2], {'a': null}, type(1), duration('1s'), timestamp(0)])",
    "'%f'.format(['NaN'])",
    // Not a literal list, or not a literal format string: checked when it runs.
    "'%d'.format(names)",
    "name.format(['a'])",
    // Our cap on %f's precision applies when the call runs, not here (kube has no cap).
    "'%.200f'.format([1.0])",
  ])('%s passes', (expr) => {
    expect(compile(expr)).toBe('string');
  });
});
