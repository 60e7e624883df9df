// A set of admission expressions evaluated as kube's ForInput evaluates one (admission/cel/
// evaluate.ts): kube's error texts, the per-call limit, the set's budget charged the variables an
// expression reads before the expression itself, and variables evaluated lazily, once per set.
import { describe, expect, it } from 'vitest';
import { AdmissionCompiler } from '../../../../admission/cel/compile.js';
import { type Compiled, evaluateSet, type Inputs, objectValue } from '../../../../admission/cel/evaluate.js';
import { OUT_OF_BUDGET } from '../../../../cel/kube/limits.js';
import { BoolType, IntType } from '../../../../cel/types.js';

const ALL = { params: true, authorizer: true };

const inputs: Inputs = {
  object: objectValue({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } }),
  oldObject: null,
  request: objectValue({ operation: 'CREATE' }),
  namespaceObject: null,
  params: null,
};

/** ~135,000 cost units: under the per-call limit of 1,000,000. */
const COSTLY =
  '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, a + b + c + d > 0))))';

function policy(variables: [string, string][]) {
  const c = new AdmissionCompiler(true);
  for (const [name, src] of variables) c.compileVariable(name, src, ALL, 'StoredExpressions');
  const expr = (src: string): Compiled => ({
    expression: src,
    result: c.compile(src, ALL, 'StoredExpressions', [BoolType]),
  });
  return { variables: c.variables, expr };
}

describe('a set of expressions', () => {
  const { variables, expr } = policy([]);

  it("gives each its value or kube's error, leaving placeholders empty", () => {
    const r = evaluateSet(
      [
        expr("object.data.a == '1'"),
        undefined,
        expr('object.data.b == 1'),
        expr('1'),
        expr("authorizer.path('/').check('get').allowed()"),
        expr('params == null'),
      ],
      inputs,
      variables,
      1_000_000,
    );
    expect(r.error).toBeUndefined();
    expect(r.error === undefined && r.results).toEqual([
      { value: true },
      undefined,
      { error: "expression 'object.data.b == 1' resulted in error: no such key: b" },
      { error: 'compilation error: must evaluate to bool but got int' },
      // No authorizer bound: the name is declared but has no value.
      {
        error:
          "expression 'authorizer.path('/').check('get').allowed()' resulted in error: no such attribute(s): authorizer",
      },
      { value: true },
    ]);
  });

  it("stops at the per-call limit with cel-go's text", () => {
    const r = evaluateSet(
      // Past the 1M per-call limit: each term costs 114,441 (kube's constant lists are free).
      [expr(Array.from({ length: 12 }, () => COSTLY).join(' && '))],
      inputs,
      variables,
      10_000_000,
    );
    expect(r.error === undefined && r.results[0]?.error).toMatch(
      /resulted in error: operation cancelled: actual cost limit exceeded$/,
    );
  });

  it('ends, whole, once the budget is spent, and says how much is left otherwise', () => {
    const one = evaluateSet([expr(COSTLY)], inputs, variables, 10_000_000);
    expect(one.error).toBeUndefined();
    const cost = 10_000_000 - (one.error === undefined ? one.remaining : 0);
    expect(cost).toBeGreaterThan(100_000);
    expect(evaluateSet([expr(COSTLY), expr(COSTLY)], inputs, variables, 2 * cost)).toMatchObject({ remaining: 0 });
    expect(evaluateSet([expr(COSTLY), expr(COSTLY)], inputs, variables, 2 * cost - 1)).toEqual({
      error: OUT_OF_BUDGET,
    });
  });
});

describe('objects', () => {
  it('are JSON: integers int, other numbers double, a property held undefined absent', () => {
    const { variables, expr } = policy([]);
    const r = evaluateSet(
      [expr('type(object.spec.n) == int && type(object.spec.d) == double && !has(object.metadata.namespace)')],
      { ...inputs, object: objectValue({ metadata: { name: 'c', namespace: undefined }, spec: { n: 1, d: 1.5 } }) },
      variables,
      100,
    );
    expect(r.error === undefined && r.results).toEqual([{ value: true }]);
  });
});

describe('variables', () => {
  it('are evaluated when first read, once per set, and charged to the expression that read them', () => {
    const { variables, expr } = policy([['v', COSTLY]]);
    const alone = evaluateSet([expr(COSTLY)], inputs, variables, 10_000_000);
    const cost = 10_000_000 - (alone.error === undefined ? alone.remaining : 0);
    // Read by both: evaluated once. `variables.v` itself costs 2 (the identifier and the field).
    const both = evaluateSet([expr('variables.v'), expr('variables.v')], inputs, variables, 10_000_000);
    expect(both).toMatchObject({ remaining: 10_000_000 - cost - 4 });
    // The budget is checked against the variable's cost before the expression's.
    expect(evaluateSet([expr('variables.v')], inputs, variables, cost)).toEqual({ error: OUT_OF_BUDGET });
    // Never read: never evaluated, never charged.
    expect(evaluateSet([expr('true')], inputs, variables, 10)).toMatchObject({ remaining: 10 });
  });

  it("that fail carry kube's texts into the expression that reads them", () => {
    const { variables, expr } = policy([
      ['missing', 'object.data.nope'],
      ['broken', "'a' + 1"],
      ['fine', 'object.data.a'],
    ]);
    const r = evaluateSet(
      [expr("variables.missing == 'x'"), expr("variables.broken == 'x'"), expr("variables.fine == '1'")],
      inputs,
      variables,
      1_000_000,
    );
    expect(r.error === undefined && r.results).toEqual([
      {
        error:
          "expression 'variables.missing == 'x'' resulted in error: composited variable \"missing\" fails to evaluate: no such key: nope",
      },
      {
        error:
          "expression 'variables.broken == 'x'' resulted in error: composited variable \"broken\" fails to compile: compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'\n | 'a' + 1\n | ....^",
      },
      { value: true },
    ]);
  });

  it('see the variables before them, in the same set', () => {
    const c = new AdmissionCompiler(true);
    c.compileVariable('a', '1', ALL, 'StoredExpressions');
    c.compileVariable('b', 'variables.a + 1', ALL, 'StoredExpressions');
    const r = evaluateSet(
      [{ expression: 'variables.b', result: c.compile('variables.b', ALL, 'StoredExpressions', [IntType]) }],
      inputs,
      c.variables,
      100,
    );
    expect(r.error === undefined && r.results).toEqual([{ value: 2n }]);
  });
});
