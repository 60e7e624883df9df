// cel-go's parser limits on a rule (cel/parser.ts): the expression's size in code points and
// its nesting, the two ways cel-go counts it, with cel-go's texts in kube's 422 field error; and
// the shapes cel-go accepts at any length (`!` runs, `&&` chains) accepted without overflowing
// the engine. Boundaries as cel-go's parser computes them (parser.go, the ANTLR listener and the
// visitor): a failure here used to be a RangeError (500) or the engine's own message.
import { describe, expect, it } from 'vitest';
import { compileSchemaRules } from '../../../../crd/cel/compile.js';
import type { JSONSchemaProps } from '../../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../../apimachinery/field-errors.js';

const P = 'spec.validation.openAPIV3Schema';
const R = `${P}.properties[spec].x-kubernetes-validations[0]`;
const goRule = (rule: string) =>
  `apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;

const spec = (rule: string): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        b: { type: 'boolean' },
        i: { type: 'integer' },
        // dyn (int-or-string): selections and indexes on it type-check at any depth.
        m: { 'x-kubernetes-int-or-string': true },
        l: { type: 'array', maxItems: 5, items: { 'x-kubernetes-int-or-string': true } },
      },
      'x-kubernetes-validations': [{ rule }],
    },
  },
});
const errorsOf = (rule: string) => compileSchemaRules(spec(rule), P).errors.map(formatFieldError);

const RECURSION = 'compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250';
const VISITOR = 'compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded';

describe('expression size: 100,000 code points', () => {
  const cases: { name: string; rule: string; want: string[] }[] = [
    { name: 'exactly the limit', rule: 'true' + ' '.repeat(100_000 - 4), want: [] },
    {
      name: 'one past',
      rule: 'true' + ' '.repeat(100_001 - 4),
      want: [
        `${R}.rule: Invalid value: ${goRule('true' + ' '.repeat(100_001 - 4))}: compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000`,
      ],
    },
    // Code points, not UTF-16 units: 60,000 emoji are 120,000 units.
    { name: 'astral characters count once', rule: `'${'😀'.repeat(60_000)}' != ''`, want: [] },
    {
      name: 'a 200 KB rule',
      rule: 'self.b' + ' && self.b'.repeat(20_000),
      want: [
        `${R}.rule: Invalid value: ${goRule('self.b' + ' && self.b'.repeat(20_000))}: compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 200006, limit 100000`,
      ],
    },
  ];
  it.each(cases)('$name', ({ rule, want }) => {
    expect(errorsOf(rule)).toEqual(want);
  });
});

describe('nesting: the listener (250 open invocations of a grammar rule) and the visitor (250 nested compound nodes)', () => {
  const parens = (n: number) => '('.repeat(n) + 'self.b' + ')'.repeat(n);
  const selects = (n: number) => 'has(self.m' + '.a'.repeat(n - 1) + ')'; // n selects
  const operands = (n: number) => 'self.i' + ' + 1'.repeat(n - 1) + ' > 0'; // n operands of +
  const ternaries = (n: number) => 'self.b ? true : '.repeat(n) + 'false';
  const lists = (n: number) => 'size(' + '['.repeat(n) + '1' + ']'.repeat(n) + ') > 0';
  const indexes = (n: number) => 'self.l' + '[0]'.repeat(n) + ' == 1';
  const calls = (n: number) => 'size(' + 'string('.repeat(n) + '1' + ')'.repeat(n) + ') > 0';
  const cases: { name: string; rule: string; want?: string }[] = [
    { name: '249 nested parentheses', rule: parens(249) },
    { name: '250 nested parentheses', rule: parens(250), want: RECURSION },
    { name: '5,000 nested parentheses', rule: parens(5000), want: RECURSION },
    { name: '249 nested ternaries', rule: ternaries(249) },
    { name: '250 nested ternaries', rule: ternaries(250), want: RECURSION },
    { name: '248 nested lists in a call', rule: lists(248) },
    { name: '249 nested lists in a call', rule: lists(249), want: RECURSION },
    { name: '248 nested calls in a call', rule: calls(248) },
    { name: '249 nested calls in a call', rule: calls(249), want: RECURSION },
    // Chains do not nest for the listener; the visitor counts them.
    { name: 'a chain of 250 selects', rule: selects(250) },
    { name: 'a chain of 251 selects', rule: selects(251), want: VISITOR },
    { name: 'a chain of 5,000 selects', rule: selects(5000), want: VISITOR },
    { name: '249 operands of + under a comparison', rule: operands(249) },
    { name: '250 operands of + under a comparison', rule: operands(250), want: VISITOR },
    { name: '248 indexes under a comparison', rule: indexes(248) },
    { name: '249 indexes under a comparison', rule: indexes(249), want: VISITOR },
    { name: '5,000 comparisons', rule: 'self.b' + ' == true'.repeat(5000), want: VISITOR },
  ];
  it.each(cases)('$name', ({ rule, want }) => {
    expect(errorsOf(rule)).toEqual(want ? [`${R}.rule: Invalid value: ${goRule(rule)}: ${want}`] : []);
  });
});

describe('shapes cel-go accepts at any length', () => {
  const cases: { name: string; rule: string }[] = [
    // cel-go keeps the parity of a run of `!` or `-`.
    { name: '5,000 `!`', rule: '!'.repeat(5000) + 'self.b' },
    { name: '5,001 `!` (odd) is a not', rule: '!'.repeat(5001) + '!self.b' },
    { name: '5,000 unary `-`', rule: 'self.i == ' + '-'.repeat(5000) + '1' },
    { name: 'a binary `-` before a run', rule: 'self.i - - - - 1 == 4' },
    // cel-go balances && and || chains.
    { name: '5,000 `&&`', rule: 'self.b' + ' && self.b'.repeat(5000) },
    {
      name: '5,000 `||` inside 240 parentheses',
      rule: '('.repeat(240) + 'self.b' + ' || self.b'.repeat(5000) + ')'.repeat(240),
    },
  ];
  it.each(cases)('$name', ({ rule }) => {
    expect(errorsOf(rule)).toEqual([]);
  });

  it('evaluates them with their meaning', () => {
    /** Whether the rule holds for spec {b: true, i: 3}. */
    const holds = (rule: string): boolean => {
      const { errors, rules } = compileSchemaRules(spec(rule), P);
      expect(errors.map(formatFieldError)).toEqual([]);
      return rules.validate({ spec: { b: true, i: 3 } }, undefined).errors.length === 0;
    };
    expect(holds('!'.repeat(5000) + 'self.b')).toBe(true);
    expect(holds('!'.repeat(5001) + 'self.b')).toBe(false);
    expect(holds('-'.repeat(5001) + 'self.i == -3')).toBe(true);
    expect(holds('self.i - - - - 1 == 4')).toBe(true);
    expect(holds('self.b' + ' && self.b'.repeat(4999) + ' && false')).toBe(false);
    expect(holds('false' + ' || false'.repeat(4999) + ' || self.b')).toBe(true);
  });

  it('an even run is dropped, an odd one is one operator at its first, as cel-go parses them', () => {
    expect(errorsOf('!!self.i')).toEqual([
      `${R}.rule: Invalid value: ${goRule('!!self.i')}: cel expression must evaluate to a bool`,
    ]);
    expect(errorsOf('!!!self.i')).toEqual([
      `${R}.rule: Invalid value: ${goRule('!!!self.i')}: compilation failed: ERROR: <input>:1:1: found no matching overload for '!_' applied to '(int)'\n | !!!self.i\n | ^`,
    ]);
  });

  it('keeps the positions of what follows a run', () => {
    const [e] = errorsOf('!!!!!self.x');
    expect(e).toContain("compilation failed: ERROR: <input>:1:10: undefined field 'x'\n | !!!!!self.x\n | .........^");
  });
});

describe('no stack overflow escapes', () => {
  it('a shape cel-go rejects as a syntax error, 10,000 operators long, is a compilation failure', () => {
    // `!-x` is not CEL: ANTLR's error at the first `-` after a `!`, and its recoveries.
    const rule = '!-'.repeat(5000) + 'self.b';
    const errs = errorsOf(rule);
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain(
      `: compilation failed: ERROR: <input>:1:3: Syntax error: no viable alternative at input '-!'\n | ${rule}\n | ..^`,
    );
  });
});
