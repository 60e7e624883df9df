// The request's regex work budget (cel/regex.ts REGEX_WORK_BUDGET): kube charges a regex call
// by the pattern's length, which does not bound re2js's time on the event loop, so each compile
// and search is charged (input code units + 1) × program size before it runs, and one the budget
// cannot cover is refused with kube's out-of-budget error without running. Ordinary rules over
// ordinary strings stay well inside it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileSchemaRules } from '../../../crd/cel/compile.js';
import {
  REGEX_COMPILE_WORK_PER_INSTRUCTION,
  REGEX_WORK_BUDGET,
  REGEX_DFA_BYTES,
  compileRegex,
  estimateRegex,
  regexCache,
  regexCounters,
} from '../../../cel/regex.js';
import type { JSONSchemaProps, ValidationRule } from '../../../apimachinery/apis/apiextensions.js';
import { formatFieldError } from '../../../apimachinery/field-errors.js';

const OUT_OF_BUDGET =
  '<nil>: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run';
/** 24 characters (kube charges ⌈24 · 0.25⌉ = 6 a tenth of the input), a 5,000-instruction program. */
const PATHO = '(?:a|aa){0,999}[^a]{2}';

const schemaOf = (
  rules: ValidationRule[],
  props: Record<string, JSONSchemaProps> = { s: { type: 'string' } },
): JSONSchemaProps => ({
  type: 'object',
  properties: props,
  'x-kubernetes-validations': rules,
});
const compile = (schema: JSONSchemaProps) => {
  const { errors, rules } = compileSchemaRules(schema, 'spec.validation.openAPIV3Schema');
  expect(errors.map(formatFieldError)).toEqual([]);
  return rules;
};
/** Validates, and counts the compiles and engine runs (re2js test()/find()) done meanwhile. */
const validate = (schema: JSONSchemaProps, obj: unknown, regexWorkBudget?: number) => {
  const rules = compile(schema);
  const before = { ...regexCounters };
  const r = rules.validate(obj, undefined, regexWorkBudget === undefined ? {} : { regexWorkBudget });
  return {
    errors: r.errors.map(formatFieldError),
    spent: (regexWorkBudget ?? REGEX_WORK_BUDGET) - r.remainingRegexWork,
    runs: regexCounters.runs - before.runs,
    compiles: regexCounters.compiles - before.compiles,
  };
};
/** The work a search over `s` is charged: (code units + 1) × the larger of the estimate and the program. */
const work = (s: string, p: string): number =>
  (s.length + 1) * Math.max(estimateRegex(p).size, compileRegex(p).programSize());

beforeEach(() => regexCache.clear());
afterEach(() => regexCache.clear());

describe("regex work past the request budget is refused before it runs, with kube's budget error", () => {
  const rule = (r: string): ValidationRule[] => [{ rule: r }];
  const cases: { name: string; rules: ValidationRule[]; s: string }[] = [
    // re2js would block the event loop for ~24 s (14 KB: ~2.9 s); kube's cost is 84,006 of 1,000,000.
    { name: `matches('${PATHO}') over 140 KB`, rules: rule(`!self.s.matches('${PATHO}')`), s: 'a'.repeat(140_000) },
    { name: `matches('${PATHO}') over 14 KB`, rules: rule(`!self.s.matches('${PATHO}')`), s: 'a'.repeat(14_000) },
    { name: `matches('${PATHO}') over 1.4 MB`, rules: rule(`!self.s.matches('${PATHO}')`), s: 'a'.repeat(1_400_000) },
    { name: `find('${PATHO}') over 140 KB`, rules: rule(`self.s.find('${PATHO}') == ''`), s: 'a'.repeat(140_000) },
    {
      name: `findAll('${PATHO}') over 140 KB`,
      rules: rule(`self.s.findAll('${PATHO}').size() == 0`),
      s: 'a'.repeat(140_000),
    },
    {
      name: 'an `||` does not swallow the refusal',
      rules: rule(`self.s.matches('${PATHO}') || true`),
      s: 'a'.repeat(140_000),
    },
    // 0.7-1.4 s of matching; kube's budget admits 35 of them (280,005 each of 10,000,000).
    {
      name: "40 rules `!self.s.matches('(a+)+$')` over 1.4 MB",
      rules: Array.from({ length: 40 }, (_, i) => ({ rule: `!self.s.matches('(a+)+$')${' '.repeat(i)}` })),
      s: 'a'.repeat(1_400_000),
    },
  ];
  it.each(cases)('$name', ({ rules, s }) => {
    const r = validate(schemaOf(rules), { s });
    expect(r.errors).toEqual([OUT_OF_BUDGET]);
    expect(r.runs).toBe(0);
  });

  it("later rules are not run once the budget is out, nor is an earlier rule's work undone", () => {
    const s = 'a'.repeat(100_000);
    // ^[a-z]+$ is charged 100,001 × 6 (its program): one fits a budget of 700,000, the second does not.
    const r = validate(
      schemaOf([
        { rule: "self.s.matches('^[a-z]+$')" },
        { rule: "self.s.matches('^[a-z]+$') " },
        { rule: "self.s.matches('^[a-y]+$')" },
      ]),
      { s },
      700_000,
    );
    expect(r.errors).toEqual([OUT_OF_BUDGET]);
    expect(r.runs).toBe(1);
    expect(r.spent).toBe(work(s, '^[a-z]+$'));
  });

  it('findAll is charged search by search: `a*b|a` over 14 KB (every search scans to the end) stops after a few', () => {
    // Each of the 14,000 searches would scan the rest of the string (4 s in re2js); the first ones
    // are charged ~14,001 × 7 each, so the budget stops it within a dozen.
    const r = validate(schemaOf([{ rule: "self.s.findAll('a*b|a').size() > 0" }]), { s: 'a'.repeat(14_000) });
    expect(r.errors).toEqual([OUT_OF_BUDGET]);
    expect(r.runs).toBeGreaterThan(0);
    expect(r.runs).toBeLessThan(15);
  });

  it('compiling patterns taken from the object is charged too: of 20 distinct 4,000-instruction patterns, two are compiled', () => {
    // Each compile is charged ~4,000 × 100 (re2js: 25-40 ms), each search 5 × ~4,000.
    const ps = Array.from({ length: 20 }, (_, i) => `x${i}|${'a{0,9}'.repeat(222)}`);
    const schema = schemaOf([{ rule: 'self.ps.all(p, self.s.matches(p))' }], {
      s: { type: 'string', maxLength: 10 },
      ps: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 4000 } },
    });
    expect(estimateRegex(ps[0]!).size * REGEX_COMPILE_WORK_PER_INSTRUCTION).toBeGreaterThan(REGEX_WORK_BUDGET / 3);
    const r = validate(schema, { s: 'aaaa', ps });
    expect(r.errors).toEqual([OUT_OF_BUDGET]);
    expect(r.compiles).toBe(2);
    expect(regexCache.size).toBe(2);
  });

  it("a messageExpression's regex work is refused with kube's messageExpression budget error", () => {
    const r = validate(
      schemaOf([{ rule: 'false', messageExpression: `self.s.matches('${PATHO}') ? 'matched' : 'did not match'` }]),
      { s: 'a'.repeat(140_000) },
    );
    expect(r.errors).toEqual([
      '<nil>: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
    ]);
    expect(r.runs).toBe(0);
  });
});

describe('ordinary rules over ordinary strings stay inside the budget', () => {
  const simple = [
    '^[a-z]+$',
    '^[a-z0-9]+$',
    '[a-z]',
    '^a',
    'a$',
    '^[-a-z0-9]*$',
    'a+',
    '^(a|b)+$',
    '\\w',
    '^[[:alpha:]]+$',
  ];

  it('100 rules with simple patterns over a 1 KB string', () => {
    const rules = Array.from({ length: 100 }, (_, i) => ({
      rule: `self.s.matches('${simple[i % simple.length]!.replace(/\\/g, '\\\\')}')${' '.repeat(Math.floor(i / simple.length))}`,
    }));
    const s = 'a'.repeat(1024);
    const r = validate(schemaOf(rules), { s });
    expect(r.errors).toEqual([]);
    expect(r.runs).toBe(100);
    // Each search charged (1,024 + 1) × its program size: about half the budget in all.
    expect(r.spent).toBe(simple.reduce((sum, p) => sum + 10 * work(s, p), 0));
    expect(r.spent).toBeLessThan(REGEX_WORK_BUDGET * 0.6);
  });

  it('one matches over a 100 KB string with a simple pattern', () => {
    const s = 'a'.repeat(100_000);
    const r = validate(schemaOf([{ rule: "self.s.matches('^[a-z]+$')" }]), { s });
    expect(r.errors).toEqual([]);
    expect(r.spent).toBe(work(s, '^[a-z]+$'));
  });

  it('a DNS-label rule over each of 100 list items of 63 characters', () => {
    const label = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
    const schema = schemaOf([], {
      names: {
        type: 'array',
        maxItems: 100,
        items: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule: `self.matches('${label}')` }] },
      },
    });
    const r = validate(schema, { names: Array.from({ length: 100 }, (_, i) => `n${i}-`.padEnd(62, 'x') + 'z') });
    expect(r.errors).toEqual([]);
    expect(r.runs).toBe(100);
  });

  it('find and findAll over 1 KB with 100 matches', () => {
    const s = Array.from({ length: 100 }, (_, i) => `item${i % 10}`)
      .join(',')
      .padEnd(1024, ' ');
    const r = validate(
      schemaOf([{ rule: "self.s.findAll('[0-9]+').size() == 100" }, { rule: "self.s.find('[0-9]+') == '0'" }]),
      { s },
    );
    expect(r.errors).toEqual([]);
  });

  it("an admitted search just inside the budget runs, with re2js's DFA held to REGEX_DFA_BYTES", () => {
    // 398 × 2,505 of 1,000,000: re2js's DFA makes a 2,500-instruction state per character here.
    const p = '(?:a|aa){0,500}[^a]{2}';
    const s = 'a'.repeat(Math.floor(REGEX_WORK_BUDGET / work('', p)) - 1);
    const r = validate(schemaOf([{ rule: `!self.s.matches('${p}')` }]), { s });
    expect(r.errors).toEqual([]);
    expect(r.runs).toBe(1);
    expect(r.spent).toBe(work(s, p));
    const dfa = compileRegex(p).re2Input.lazyDFA;
    expect(dfa.maxMem).toBe(REGEX_DFA_BYTES);
    expect(dfa.maxMem - dfa.memBudget).toBeLessThanOrEqual(REGEX_DFA_BYTES);
  });

  it('the budget is per request: a rule using most of it passes in each of two validations', () => {
    const schema = schemaOf([{ rule: "self.s.matches('^[a-z]+$')" }]);
    const s = 'a'.repeat(150_000);
    for (let i = 0; i < 2; i++) expect(validate(schema, { s }).errors).toEqual([]);
  });
});
