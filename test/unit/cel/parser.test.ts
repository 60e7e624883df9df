// The parser against cel-spec's parsing data (cel-go's parser tests, as @bufbuild/cel-spec
// ships them with cel-go's debug output and error text), then kube's settings and limits and
// the constructs real CRDs use.
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Expr } from '../../../cel/ast.js';
import { idKindAdorner, kindAdorner, toDebugString } from '../../../cel/debug.js';
import { KUBE_PARSER_OPTIONS, MAX_RECURSION_DEPTH, type ParserOptions, parse } from '../../../cel/parser.js';
import {
  crdsOf,
  expressionsOf,
  REALWORLD_CRDS_DIR,
  REALWORLD_MISSING,
  realworldRuleFiles,
} from '../../helpers/realworld.js';

interface ParsingTest {
  original: { expr: string };
  /** cel-go's debug form when the expression parses. */
  ast?: string;
  /** cel-go's errors: the parser's when there is no `ast`, else the checker's (a later step's business). */
  error?: string;
}
const require = createRequire(import.meta.url);
const { tests: suite } = require('@bufbuild/cel-spec/testdata/parsing.js') as { tests: { tests: ParsingTest[] } };

/**
 * The parser the data was generated with: cel-go's parser-test settings (macros, recursion 32,
 * 4 recoveries of at most 4 tokens, macro calls recorded), no optional syntax, and escaped
 * identifiers off as cel-go had them then; errors name the source ''.
 */
const SPEC_OPTIONS: ParserOptions = {
  maxRecursionDepth: 32,
  errorRecoveryLimit: 4,
  errorRecoveryLookaheadTokenLimit: 4,
  populateMacroCalls: true,
  enableIdentEscapeSyntax: false,
  description: '',
};

/** Tests cel-go itself fails or that need what kube does not enable, by expression, with why. None so far. */
const SET_ASIDE: Record<string, string> = {};

function outcome(t: ParsingTest): { got: string; want: string } {
  const r = parse(t.original.expr, SPEC_OPTIONS);
  if (t.ast !== undefined) {
    return {
      got: r.issues.length > 0 ? `errors:\n${r.issues.toDisplayString()}` : toDebugString(r.ast.expr, kindAdorner),
      want: t.ast,
    };
  }
  return { got: r.issues.toDisplayString(), want: t.error ?? '' };
}

describe("cel-spec's parsing tests", () => {
  const cases = suite.tests.map((t, i) => ({ name: `#${i} ${JSON.stringify(t.original.expr).slice(0, 80)}`, t }));

  it('reports its raw pass figure', () => {
    const passed = cases.filter(({ t }) => {
      const { got, want } = outcome(t);
      return got === want;
    }).length;
    console.log(`cel-spec parsing.js: ${passed} of ${cases.length} pass (${Object.keys(SET_ASIDE).length} set aside)`);
    expect(passed).toBe(cases.length - Object.keys(SET_ASIDE).length);
  });

  it.each(cases.filter(({ t }) => SET_ASIDE[t.original.expr] === undefined))('$name', ({ t }) => {
    const { got, want } = outcome(t);
    expect(got).toBe(want);
  });
});

const kube = (expr: string) => parse(expr, KUBE_PARSER_OPTIONS);
const debugOf = (expr: string, options: ParserOptions = KUBE_PARSER_OPTIONS): string => {
  const r = parse(expr, options);
  expect(r.issues.toDisplayString()).toBe('');
  return toDebugString(r.ast.expr, idKindAdorner);
};
const errorsOf = (expr: string, options: ParserOptions = KUBE_PARSER_OPTIONS): string =>
  parse(expr, options).issues.toDisplayString();
const squash = (s: string): string => s.replace(/\s+/g, '');

describe('ids, positions and macro calls as cel-go assigns them', () => {
  it('numbers operands before operators for && and ||, operators first elsewhere', () => {
    // cel-go visits a logical operand before numbering its operator; relations number the operator between.
    expect(squash(debugOf('a && b == c'))).toBe(
      squash(
        `_&&_(a^#1:*expr.Expr_IdentExpr#, _==_(b^#2:*expr.Expr_IdentExpr#, c^#4:*expr.Expr_IdentExpr#)^#3:*expr.Expr_CallExpr#)^#5:*expr.Expr_CallExpr#`,
      ),
    );
  });

  it('balances long && chains', () => {
    expect(squash(debugOf('a && b && c && d', {}))).toBe(
      squash(`_&&_(_&&_(a^#1:*expr.Expr_IdentExpr#, b^#2:*expr.Expr_IdentExpr#)^#3:*expr.Expr_CallExpr#,
        _&&_(c^#4:*expr.Expr_IdentExpr#, d^#6:*expr.Expr_IdentExpr#)^#7:*expr.Expr_CallExpr#)^#5:*expr.Expr_CallExpr#`),
    );
    expect(squash(debugOf('a && b && c', { enableVariadicOperatorASTs: true }))).toBe(
      squash(
        `_&&_(a^#1:*expr.Expr_IdentExpr#, b^#2:*expr.Expr_IdentExpr#, c^#4:*expr.Expr_IdentExpr#)^#3:*expr.Expr_CallExpr#`,
      ),
    );
  });

  it('optional syntax, as kube enables it', () => {
    expect(squash(debugOf('a.?b[?0] && a[?c]'))).toBe(
      squash(`_&&_(_[?_](_?._(a^#1:*expr.Expr_IdentExpr#, "b"^#2:*expr.Constant_StringValue#)^#3:*expr.Expr_CallExpr#,
        0^#5:*expr.Constant_Int64Value#)^#4:*expr.Expr_CallExpr#,
        _[?_](a^#6:*expr.Expr_IdentExpr#, c^#8:*expr.Expr_IdentExpr#)^#7:*expr.Expr_CallExpr#)^#9:*expr.Expr_CallExpr#`),
    );
    expect(squash(debugOf("{?'key': value}"))).toBe(
      squash(
        `{?"key"^#3:*expr.Constant_StringValue#:value^#4:*expr.Expr_IdentExpr#^#2:*expr.Expr_CreateStruct_Entry#}^#1:*expr.Expr_StructExpr#`,
      ),
    );
    const list = kube('[?a, b, ?c]').ast.expr;
    expect(list.kind === 'list' && list.optionalIndices).toEqual([0, 2]);
  });

  it('places every node, in code points', () => {
    const r = kube("'😁' + x");
    const x = r.ast.expr.kind === 'call' ? r.ast.expr.args[1]! : r.ast.expr;
    expect(r.ast.sourceInfo.positions.get(x.id)).toEqual({ start: 6, stop: 7 });
    expect(errorsOf("'😁' + $")).toBe(
      "ERROR: <input>:1:7: Syntax error: token recognition error at: '$'\n | '😁' + $\n | .．....^\n" +
        "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | '😁' + $\n | .．.....^",
    );
  });

  it('records macro calls when asked, nested macros by id', () => {
    const r = parse('[1].all(x, [x].exists(y, y > 0))', { populateMacroCalls: true });
    const calls = r.ast.sourceInfo.macroCalls;
    expect(calls.size).toBe(2);
    const outer = calls.get(r.ast.expr.id)! as Extract<Expr, { kind: 'call' }>;
    expect(outer.function).toBe('all');
    expect(outer.args[1]!.kind).toBe('unspecified');
    expect(calls.has(outer.args[1]!.id)).toBe(true);
    expect(parse('has(a.b)').ast.sourceInfo.macroCalls.size).toBe(0);
  });
});

describe('what CRD rules write', () => {
  it.each([
    [
      'has(self[0].matches)',
      '_[_](self^#2:*expr.Expr_IdentExpr#, 0^#4:*expr.Constant_Int64Value#)^#3:*expr.Expr_CallExpr#.matches~test-only~^#6:*expr.Expr_SelectExpr#',
    ],
    [
      'has(self.matches[0].path)',
      '_[_](self^#2:*expr.Expr_IdentExpr#.matches^#3:*expr.Expr_SelectExpr#, 0^#5:*expr.Constant_Int64Value#)^#4:*expr.Expr_CallExpr#.path~test-only~^#7:*expr.Expr_SelectExpr#',
    ],
    [
      'self.?x.orValue(1)',
      '_?._(self^#1:*expr.Expr_IdentExpr#, "x"^#2:*expr.Constant_StringValue#)^#3:*expr.Expr_CallExpr#.orValue(1^#5:*expr.Constant_Int64Value#)^#4:*expr.Expr_CallExpr#',
    ],
    [
      "self.type != 'A' || !has(self.a)",
      '_||_(_!=_(self^#1:*expr.Expr_IdentExpr#.type^#2:*expr.Expr_SelectExpr#, "A"^#4:*expr.Constant_StringValue#)^#3:*expr.Expr_CallExpr#, !_(self^#7:*expr.Expr_IdentExpr#.a~test-only~^#9:*expr.Expr_SelectExpr#)^#5:*expr.Expr_CallExpr#)^#10:*expr.Expr_CallExpr#',
    ],
    [
      "'a' in self.keys",
      '@in("a"^#1:*expr.Constant_StringValue#, self^#3:*expr.Expr_IdentExpr#.keys^#4:*expr.Expr_SelectExpr#)^#2:*expr.Expr_CallExpr#',
    ],
  ])('%s', (expr, want) => {
    expect(squash(debugOf(expr))).toBe(squash(want));
  });

  it('(has(self.a) ? self.a : []).exists(k, k == "x")', () => {
    const e = kube("(has(self.a) ? self.a : []).exists(k, k == 'x')").ast.expr;
    expect(e.kind).toBe('comprehension');
    if (e.kind !== 'comprehension') return;
    expect([e.iterVar, e.iterVar2, e.accuVar]).toEqual(['k', '', '@result']);
    expect(toDebugString(e.iterRange)).toBe('_?_:_(\n  self.a~test-only~,\n  self.a,\n  []\n)');
    expect(toDebugString(e.loopStep)).toBe('_||_(\n  @result,\n  _==_(\n    k,\n    "x"\n  )\n)');
  });

  it('two-variable comprehensions (kube 1.32+)', () => {
    const e = kube('self.all(k, v, v > 0)').ast.expr;
    expect(e.kind === 'comprehension' && [e.iterVar, e.iterVar2]).toEqual(['k', 'v']);
    const m = kube('m.transformMap(k, v, k != "x", v + 1)').ast.expr;
    expect(m.kind === 'comprehension' && toDebugString(m.loopStep)).toBe(
      '_?_:_(\n  _!=_(\n    k,\n    "x"\n  ),\n  cel.@mapInsert(\n    @result,\n    k,\n    _+_(\n      v,\n      1\n    )\n  ),\n  @result\n)',
    );
    expect(errorsOf('m.exists(k, k, true)')).toBe(
      'ERROR: <input>:1:13: duplicate variable name: k\n | m.exists(k, k, true)\n | ............^',
    );
    expect(parse('m.exists(k, v, true)').issues.toDisplayString()).toBe('');
    expect(parse('m.exists(k, v, true)').ast.expr.kind).toBe('call');
  });

  it('optMap and optFlatMap (cel.OptionalTypes)', () => {
    expect(toDebugString(kube('self.?a.optMap(x, x + 1)').ast.expr)).toBe(
      '_?_:_(\n  _?._(\n    self,\n    "a"\n  ).hasValue(),\n  optional.of(\n    __comprehension__(\n      // Variable\n      #unused,\n      // Target\n      [],\n      // Accumulator\n      x,\n      // Init\n      _?._(\n        self,\n        "a"\n      ).value(),\n      // LoopCondition\n      false,\n      // LoopStep\n      x,\n      // Result\n      _+_(\n        x,\n        1\n      ))\n  ),\n  optional.none()\n)',
    );
    expect(errorsOf('o.optFlatMap(a.b, 1)')).toBe(
      'ERROR: <input>:1:15: optFlatMap() variable name must be a simple identifier\n | o.optFlatMap(a.b, 1)\n | ..............^',
    );
  });

  it('refuses backquoted names, as kube does', () => {
    expect(errorsOf('self.`a-b` == 1')).toBe(
      "ERROR: <input>:1:6: unsupported syntax: '`'\n | self.`a-b` == 1\n | .....^",
    );
    expect(toDebugString(parse('self.`a-b`').ast.expr)).toBe('self.a-b');
  });
});

describe('the rules of real-world CRDs (../shared/realworld/crds)', () => {
  if (REALWORLD_MISSING) it('did not run', (ctx) => ctx.skip(`did not run: ${REALWORLD_MISSING}`));

  it.each(realworldRuleFiles().map((f) => [relative(REALWORLD_CRDS_DIR, f.file), f.file] as const))(
    '%s: all parse as kube parses them',
    (_name, file) => {
      const all = crdsOf(file).flatMap((crd) => expressionsOf(crd));
      expect(all.length).toBeGreaterThan(0);
      expect(
        all.flatMap((r) => {
          const issues = kube(r).issues;
          return issues.length > 0 ? [issues.toDisplayString()] : [];
        }),
      ).toEqual([]);
    },
  );
});

describe("kube's limits (cel-go's defaults: base.go sets none)", () => {
  it('expressions of up to 100,000 code points', () => {
    expect(kube('a'.repeat(100_000)).issues.length).toBe(0);
    expect(errorsOf('a'.repeat(100_001))).toBe(
      'ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000',
    );
    // Code points, not UTF-16 units: 99,998 emoji in quotes are 100,000 code points.
    expect(kube(`'${'😁'.repeat(99_998)}'`).issues.length).toBe(0);
  });

  it('nesting of up to 250 per grammar rule', () => {
    expect(kube('['.repeat(250) + ']'.repeat(250)).issues.length).toBe(0);
    expect(errorsOf('['.repeat(251) + ']'.repeat(251))).toBe(
      'ERROR: <input>:-1:0: expression recursion limit exceeded: 250',
    );
    expect(errorsOf(`${'('.repeat(250)}1${')'.repeat(250)}`)).toBe(
      'ERROR: <input>:-1:0: expression recursion limit exceeded: 250',
    );
  });

  it('ASTs up to 250 deep', () => {
    expect(kube(`a${'.b'.repeat(250)}`).issues.length).toBe(0);
    expect(errorsOf(`a${'.b'.repeat(251)}`)).toBe('ERROR: <input>:-1:0: max recursion depth exceeded');
    expect(errorsOf(`1${' + 1'.repeat(251)}`)).toBe('ERROR: <input>:-1:0: max recursion depth exceeded');
  });

  it('30 error recoveries', () => {
    const errors = kube(`[${'?,'.repeat(40)}]`).issues.errors;
    expect(errors.length).toBe(32);
    expect(errors.at(-1)?.message).toBe('Syntax error: error recovery attempt limit exceeded: 30');
    expect(parse('a ? b ((?))', { errorRecoveryLimit: 2 }).issues.errors.at(-1)?.message).toBe(
      'Syntax error: error recovery attempt limit exceeded: 2',
    );
  });

  it('100 syntax errors reported, then a note', () => {
    const errors = kube('$'.repeat(150)).issues.errors;
    expect(errors.length).toBe(100);
    expect(parse('$'.repeat(150)).issues.toDisplayString().split('\n').at(-1)).toBe('1 more errors were truncated');
  });

  it('hostile input ends in an error, never a stack overflow', () => {
    const deep = (open: string, close: string, n: number, inner = '1'): string =>
      open.repeat(n) + inner + close.repeat(n);
    expect(errorsOf(deep('(', ')', 49_999))).toBe('ERROR: <input>:-1:0: expression recursion limit exceeded: 250');
    expect(errorsOf(deep('(', ')', 100_000))).toBe(
      'ERROR: <input>:-1:0: expression code point size exceeds limit: size: 200001, limit 100000',
    );
    const unlimited: ParserOptions = {
      ...KUBE_PARSER_OPTIONS,
      maxRecursionDepth: -1,
      expressionSizeCodePointLimit: -1,
    };
    for (const [open, close] of [
      ['(', ')'],
      ['[', ']'],
      ['f(', ')'],
      ['{1:', '}'],
      ['a[', ']'],
      ['-(', ')'],
      ['x ? y : (', ')'],
    ]) {
      expect(parse(deep(open!, close!, 100_000), unlimited).issues.toDisplayString()).toBe(
        `ERROR: <input>:-1:0: expression recursion limit exceeded: ${MAX_RECURSION_DEPTH}`,
      );
    }
    expect(parse(`a${'.b'.repeat(50_000)}`, unlimited).issues.toDisplayString()).toBe(
      'ERROR: <input>:-1:0: max recursion depth exceeded',
    );
    expect(parse(`a${' || a'.repeat(20_000)}`, unlimited).issues.length).toBe(0);
    expect(parse(`${'!'.repeat(50_000)}a`, unlimited).issues.length).toBe(0);
  });
});

describe('literals', () => {
  const value = (expr: string): unknown => {
    const r = parse(expr);
    expect(r.issues.toDisplayString()).toBe('');
    const e = r.ast.expr;
    return e.kind === 'constant' && 'value' in e.value ? e.value.value : e.kind;
  };

  it.each([
    ['9223372036854775807', 9223372036854775807n],
    ['-9223372036854775808', -9223372036854775808n],
    ['0x7fffffffffffffff', 9223372036854775807n],
    ['-0x8000000000000000', -9223372036854775808n],
    ['18446744073709551615u', 18446744073709551615n],
    ['0xFFFFFFFFFFFFFFFFu', 18446744073709551615n],
    ['1e308', 1e308],
    ['1e-400', 0],
    ['.5e1', 5],
    ['"\\xE9"', 'é'],
    ['"\\351"', 'é'],
    ['"\\u00e9\\U0001F601"', 'é😁'],
    ["r'\\n'", '\\n'],
    ["'''a\nb'''", 'a\nb'],
    ['"""a"b"""', 'a"b'],
    ['"a\\`b"', 'a`b'],
  ])('%s', (expr, want) => {
    expect(value(expr)).toEqual(want);
  });

  it('bytes', () => {
    expect(value('b"\\xE9"')).toEqual(Uint8Array.of(0xe9));
    expect(value('b"é"')).toEqual(Uint8Array.of(0xc3, 0xa9));
    expect(value("bR'\\x'")).toEqual(new TextEncoder().encode('\\x'));
    expect(value('b"\\377"')).toEqual(Uint8Array.of(0xff));
  });

  it.each([
    ['9223372036854775808', 'invalid int literal'],
    ['-9223372036854775809', 'invalid int literal'],
    ['18446744073709551616u', 'invalid uint literal'],
    ['1e309', 'invalid double literal'],
    ['"\\ud800"', 'invalid unicode code point'],
    ['b"\\u00e9"', 'unable to unescape string'],
  ])('%s: %s', (expr, message) => {
    expect(parse(expr).issues.errors.map((e) => e.message)).toEqual([message]);
  });

  it('prints as cel-go prints', () => {
    const printed = (expr: string): string => toDebugString(parse(expr).ast.expr);
    expect(['1e-5', '0.0001', '123456.5', '1e6', '-0.0', '1.5e300'].map(printed)).toEqual([
      '1e-05',
      '0.0001',
      '123456.5',
      '1e+06',
      '-0',
      '1.5e+300',
    ]);
    expect(printed('b"\\xff\\x00a"')).toBe('b"\\xff\\x00a"');
    expect(printed('"\\u0085\\t😁"')).toBe('"\\u0085\\t😁"');
  });
});
