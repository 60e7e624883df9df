// Go regexps for matches/find/findAll (cel/regex.ts): Go's error texts, a pattern's cost
// bounded before it is compiled, the compiled-pattern cache bounded, and kube's cost formula
// charged for each call.
import { afterEach, describe, expect, it } from 'vitest';
import { variable } from '../../../cel/decls.js';
import { activation, COST_LIMIT_EXCEEDED, program } from '../../../cel/eval.js';
import { kubeEnvironment } from '../../../cel/kube/environment.js';
import {
  MAX_REGEX_PROGRAM,
  REGEX_CACHE_BYTES,
  REGEX_CACHE_ENTRIES,
  RegexError,
  compileRegex,
  estimateRegex,
  regexCache,
  regexCounters,
} from '../../../cel/regex.js';
import { StringType } from '../../../cel/types.js';
import { CelError } from '../../../cel/values.js';

afterEach(() => regexCache.clear());

const goError = (pattern: string): string => {
  try {
    compileRegex(pattern);
    return 'compiled';
  } catch (e) {
    expect(e).toBeInstanceOf(RegexError);
    return (e as Error).message;
  }
};

describe("estimateRegex: Go's calcSize, without parsing", () => {
  // regexp/syntax calcSize: literal 1 a rune, capture and x* 2 + x, x+ and x? 1 + x, x{n,m} m·x + (m-n), n alternatives n - 1.
  const cases: { pattern: string; size: number }[] = [
    { pattern: 'abc', size: 3 },
    { pattern: 'a{0,9}', size: 18 },
    { pattern: 'a{9}', size: 9 },
    { pattern: 'a{2,}', size: 3 },
    { pattern: '(a|b)', size: 5 },
    { pattern: '(?:a|b|c)', size: 5 },
    { pattern: 'x*y', size: 4 },
    { pattern: '(a+)+$', size: 6 },
    { pattern: '(?:a{0,9}){0,9}', size: 171 },
    { pattern: '[a-z]', size: 2 },
    { pattern: '\\d+', size: 2 },
    { pattern: '\\Q.*\\E', size: 2 },
    { pattern: '(?:a|aa){0,999}[^a]{2}', size: 4999 },
    { pattern: 'a{0,9}'.repeat(50_000), size: 900_000 },
  ];
  it.each(cases)('$pattern', ({ pattern, size }) => {
    expect(estimateRegex(pattern).size).toBe(size);
  });

  it('weighs character classes by what they cost re2js: Unicode classes and case folding', () => {
    expect(estimateRegex('\\pL').size).toBeGreaterThan(estimateRegex('[a-z]').size * 4);
    expect(estimateRegex('(?i)[a-z]').size).toBeGreaterThan(estimateRegex('[a-z]').size);
  });

  it('notes the repetition counts Go refuses: over 1000, or nested past a product of 1000', () => {
    expect(estimateRegex('a{1001}').badRepeat).toBe('{1001}');
    expect(estimateRegex('(a{1000}){1000}').badRepeat).toBe('{1000}');
    expect(estimateRegex('((a{10}){10}){11}?').badRepeat).toBe('{11}?');
    expect(estimateRegex('((a{10}){10}){10}').badRepeat).toBeUndefined();
    expect(estimateRegex('(a{1000}){0}').badRepeat).toBeUndefined();
  });
});

describe("compileRegex: Go's errors", () => {
  const cases: { name: string; pattern: string; want: string }[] = [
    { name: 'missing paren', pattern: '(', want: 'error parsing regexp: missing closing ): `(`' },
    { name: 'missing bracket', pattern: '[a', want: 'error parsing regexp: missing closing ]: `[a`' },
    { name: 'repeat count', pattern: 'a{1001}', want: 'error parsing regexp: invalid repeat count: `{1001}`' },
    {
      name: 'nested repeat count',
      pattern: '(a{1000}){1000}',
      want: 'error parsing regexp: invalid repeat count: `{1000}`',
    },
    {
      name: 'lookbehind is not RE2',
      pattern: '(?<=a)b',
      want: 'error parsing regexp: invalid named capture: `(?<=a)b`',
    },
    // Go appends the pattern; re2js leaves it out.
    {
      name: 'nesting',
      pattern: '('.repeat(1001) + ')'.repeat(1001),
      want: `error parsing regexp: expression nests too deeply: \`${'('.repeat(1001) + ')'.repeat(1001)}\``,
    },
  ];
  it.each(cases)('$name', ({ pattern, want }) => {
    expect(goError(pattern)).toBe(want);
  });
});

describe('compileRegex: a pattern over the bound is refused before it is compiled', () => {
  const cases: { name: string; pattern: string }[] = [
    { name: 'a 300 KB `a{0,9}` pattern', pattern: 'a{0,9}'.repeat(50_000) },
    { name: 'a 12 KB one (Go compiles it: 36,000 instructions)', pattern: 'a{0,9}'.repeat(2000) },
    { name: 'Unicode classes', pattern: '\\pL'.repeat(1000) },
    { name: 'a long literal', pattern: 'a'.repeat(40_000) },
  ];
  it.each(cases)('$name', ({ pattern }) => {
    expect(goError(pattern)).toBe(`error parsing regexp: expression too large: \`${pattern}\``);
    expect(regexCache.compiled(pattern)).toBe(false);
  });

  it('a pattern at the bound compiles', () => {
    const pattern = 'a{0,9}'.repeat(Math.floor(MAX_REGEX_PROGRAM / 18));
    expect(estimateRegex(pattern).size).toBeLessThanOrEqual(MAX_REGEX_PROGRAM);
    expect(goError(pattern)).toBe('compiled');
    expect(regexCache.compiled(pattern)).toBe(true);
  });
});

describe('the compiled-regex cache is bounded', () => {
  it(`keeps at most ${REGEX_CACHE_ENTRIES} patterns, the least recently used leaving first`, () => {
    compileRegex('first');
    for (let i = 0; i < REGEX_CACHE_ENTRIES + 100; i++) {
      compileRegex(`p${i}[a-z]+`);
      if (i % 10 === 0) compileRegex('first');
    }
    expect(regexCache.size).toBe(REGEX_CACHE_ENTRIES);
    expect(regexCache.compiled('first')).toBe(true);
    expect(regexCache.compiled('p0[a-z]+')).toBe(false);
    expect(regexCache.compiled(`p${REGEX_CACHE_ENTRIES + 99}[a-z]+`)).toBe(true);
  });

  it(`holds at most ${REGEX_CACHE_BYTES / 1024 / 1024} MiB of programs`, () => {
    // Distinct patterns of ~9,000 instructions (~1.5 MB each): far fewer than the entry bound fit.
    for (let i = 0; i < 50; i++) compileRegex(`x${i}` + 'a{0,9}'.repeat(500));
    expect(regexCache.bytes).toBeLessThanOrEqual(REGEX_CACHE_BYTES);
    expect(regexCache.size).toBeLessThan(50);
    expect(regexCache.compiled(`x49${'a{0,9}'.repeat(500)}`)).toBe(true);
  });

  it('remembers a pattern that does not compile, without a program', () => {
    goError('(');
    expect(regexCache.size).toBe(1);
    expect(regexCache.compiled('(')).toBe(false);
  });
});

describe("cost: kube's formula, ⌈(|s| + 1) · 0.1⌉ · ⌈|p| · 0.25⌉ in code points", () => {
  const kube = kubeEnvironment('StoredExpressions');
  const c = kube.compile(
    's.matches(p)',
    kube.checkerEnv().addIdents(variable('s', StringType), variable('p', StringType)),
  );
  const matches = program(c.ast!, kube.programOptions);
  /** The call's cost: the evaluation's, less 1 for each of the two identifiers. */
  const callCost = (s: string, p: string, costLimit?: number) => {
    const r = matches.eval(activation({ s, p }), { costLimit });
    return { cost: r.cost - 2, value: r.value };
  };

  const cases: { s: string; p: string; cost: number }[] = [
    { s: '', p: 'abcd', cost: 1 },
    { s: 'x', p: '', cost: 0 },
    { s: 'a'.repeat(99), p: '.+', cost: 10 },
    { s: '😀'.repeat(99), p: '😀+', cost: 10 },
    { s: 'a'.repeat(1_400_000), p: '(a+)+$', cost: 280_002 },
  ];
  it.each(cases)('|s| = $s.length, p = $p', ({ s, p, cost }) => {
    expect(c.issues).toBeUndefined();
    expect(callCost(s, p).cost).toBe(cost);
  });

  it('a pattern over the bound is neither compiled nor run, and its call still costs the formula', () => {
    const p = 'a{0,9}'.repeat(16_000);
    const before = { ...regexCounters };
    const r = callCost('a'.repeat(999), p, 100_000);
    expect(r.value).toEqual(new CelError(COST_LIMIT_EXCEEDED));
    expect(r.cost).toBe(100 * 24_000);
    expect(regexCounters).toEqual(before);
  });
});
