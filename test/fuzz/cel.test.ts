// Hostile CEL (x-kubernetes-validations): rules nested 5,000 deep, 200 KB long, invalid regex
// literals, huge dynamic patterns, catastrophic-backtracking patterns over a 1.4 MB string. Each
// must be refused with a 4xx: 422 at CRD write where kube refuses the rule (cel-go's parser limits:
// recursion depth 250, 100,000 code points; regex literals compiled at CRD write; the static cost
// limit), else 422/400 when the object is written. Never a 5xx, never a stall of /readyz.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { ServerProcess } from '../helpers/server-process.js';
import { CRDS, FC_PARAMS, FuzzServer, GROUP, type Outcome, call, crdBody, must, sleep } from './harness.js';

const NS = 'cel';
const fuzz = new FuzzServer(async (s) => {
  await must(s, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
beforeAll(() => fuzz.start());
afterAll(() => fuzz.stop());

let seq = 0;
/** A fresh plural per case, so no case meets another's CRD. */
const nextPlural = (): string => `cels${++seq}`;

interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
}

/** A spec schema: string fields s and p (with maxLength when given) and a list, `rules` on spec. */
function specSchema(rules: Rule[], o: { sMax?: number; pMax?: number; onS?: Rule[] } = {}): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': rules,
        properties: {
          s: {
            type: 'string',
            ...(o.sMax !== undefined ? { maxLength: o.sMax } : {}),
            ...(o.onS ? { 'x-kubernetes-validations': o.onS } : {}),
          },
          p: { type: 'string', ...(o.pMax !== undefined ? { maxLength: o.pMax } : {}) },
          items: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  };
}

/**
 * Writes the CRD; when the server accepts it and an object is given, writes the object too. The
 * case's answer is the first refusal (or the object's answer), which must be a 4xx.
 */
async function crdThenObject(
  s: ServerProcess,
  schema: Record<string, unknown>,
  spec?: Record<string, unknown>,
): Promise<Outcome> {
  const plural = nextPlural();
  const kind = `Cel${seq}`;
  const crd = await call(s, CRDS, {
    method: 'POST',
    body: JSON.stringify(crdBody(plural, kind, schema)),
    timeoutMs: 30_000,
  });
  if (crd.status !== 201 || spec === undefined) return crd;
  const collection = `/apis/${GROUP}/v1/namespaces/${NS}/${plural}`;
  for (let i = 0; (await call(s, collection)).status !== 200; i++) {
    if (i > 200) return { body: '', note: `CRD ${plural} accepted but never served` };
    await sleep(25);
  }
  const obj = { apiVersion: `${GROUP}/v1`, kind, metadata: { name: 'x' }, spec };
  return call(s, collection, { method: 'POST', body: JSON.stringify(obj), timeoutMs: 30_000 });
}

const deep = (open: string, inner: string, close: string, n = 5000): string => open.repeat(n) + inner + close.repeat(n);
const KB200 = 200 * 1024;

/** Rules kube refuses when the CRD is written. */
const REFUSED_AT_CRD_WRITE: { name: string; rules: Rule[] }[] = [
  { name: 'parentheses 5,000 deep', rules: [{ rule: deep('(', 'true', ')') }] },
  { name: 'list literals 5,000 deep', rules: [{ rule: `size(${deep('[', '', ']')}) == 1` }] },
  { name: 'map literals 5,000 deep', rules: [{ rule: `size(${deep('{1: ', '1', '}')}) == 1` }] },
  { name: 'conditionals 5,000 deep', rules: [{ rule: deep('true ? ', 'true', ' : false') }] },
  { name: 'additions 5,000 deep', rules: [{ rule: `${deep('(1 + ', '1', ')')} > 0` }] },
  { name: 'calls 5,000 deep', rules: [{ rule: `${deep('string(', 'self.s', ')')} != ''` }] },
  {
    name: 'a 5,000-deep expression in messageExpression',
    rules: [{ rule: 'true', messageExpression: deep('(', "'m'", ')') }],
  },
  {
    name: 'a 200 KB chain of ||',
    rules: [
      {
        rule: Array(Math.ceil(KB200 / 16))
          .fill("self.s == 'x'")
          .join(' || '),
      },
    ],
  },
  { name: 'a 200 KB string literal', rules: [{ rule: `self.s != '${'a'.repeat(KB200)}'` }] },
  {
    name: 'a 200 KB messageExpression',
    rules: [
      {
        rule: 'true',
        messageExpression: Array(Math.ceil(KB200 / 6))
          .fill("'m'")
          .join(' + '),
      },
    ],
  },
  { name: 'a 200 KB identifier', rules: [{ rule: `self.${'a'.repeat(KB200)} == 1` }] },
  { name: 'a 300 KB regex literal', rules: [{ rule: `self.s.matches('${'a{0,9}'.repeat(50_000)}')` }] },
  {
    name: 'cost: three nested all() over an unbounded list',
    rules: [{ rule: 'self.items.all(x, self.items.all(y, self.items.all(z, x + y + z != "")))' }],
  },
  { name: 'cost: matches(self.p) on unbounded strings', rules: [{ rule: 'self.s.matches(self.p)' }] },
  { name: 'a rule that is not a bool', rules: [{ rule: 'self.s' }] },
  { name: 'a syntax error', rules: [{ rule: 'self.s ==' }] },
  { name: 'an unknown field', rules: [{ rule: 'self.nope == 1' }] },
  { name: 'an unknown function', rules: [{ rule: 'self.s.explode()' }] },
  { name: 'an empty rule', rules: [{ rule: '' }] },
  { name: 'a NUL in the rule', rules: [{ rule: "self.s != '\u0000'\u0000" }] },
];

/**
 * Invalid regex literals: kube compiles find()/findAll() patterns when the CRD is written (422
 * `program instantiation failed: error parsing regexp`) but matches() ones only when a rule runs
 * (422 `invalid matches argument` at object write). Either refusal will do.
 */
const INVALID_REGEX_LITERALS: { name: string; rule: string }[] = [
  { name: '(', rule: "self.s.matches('(')" },
  { name: '[a-', rule: "self.s.matches('[a-')" },
  { name: 'a**', rule: "self.s.matches('a**')" },
  { name: 'x{1001}', rule: "self.s.matches('x{1001}')" },
  { name: '\\p{Bogus}', rule: "self.s.matches('\\\\p{Bogus}')" },
  { name: 'a back-reference', rule: "self.s.matches('(a)\\\\1')" },
  { name: 'a look-behind', rule: "self.s.matches('(?<!a)b')" },
  { name: 'a duplicate group name', rule: "self.s.matches('(?P<n>a)(?P<n>b)')" },
  { name: '[ in find()', rule: "self.s.find('[') == ''" },
  { name: '(? in findAll()', rule: "self.s.findAll('(?', 2).size() == 0" },
];

/** Rules a server may accept; then the object must be refused (each rule is false, or fails, for it). */
const REFUSED_AT_OBJECT_WRITE: {
  name: string;
  rules: Rule[];
  bounds?: { sMax?: number; pMax?: number; onS?: Rule[] };
  spec: () => Record<string, unknown>;
}[] = [
  {
    name: 'self.s.matches(self.p), p a 300 KB pattern of a{0,9} and c',
    rules: [{ rule: 'self.s.matches(self.p)' }],
    bounds: { sMax: 16, pMax: 310_000 },
    // No c in s: no match, the rule is false.
    spec: () => ({ s: 'b', p: `${'a{0,9}'.repeat(50_000)}c` }),
  },
  {
    name: 'self.s.matches(self.p), p (?:a{1000}){1000}',
    rules: [{ rule: 'self.s.matches(self.p)' }],
    bounds: { sMax: 16, pMax: 64 },
    spec: () => ({ s: 'aaaa', p: '(?:a{1000}){1000}' }),
  },
  {
    name: 'self.s.matches(self.p), p not a regex',
    rules: [{ rule: 'self.s.matches(self.p)' }],
    bounds: { sMax: 16, pMax: 64 },
    spec: () => ({ s: 'aaaa', p: '(' }),
  },
  {
    name: '(a+)+$ over 1.4 MB of a and one !',
    rules: [{ rule: "self.s.matches('(a+)+$')" }],
    bounds: { sMax: 1_500_000 },
    spec: () => ({ s: `${'a'.repeat(1_400_000)}!` }),
  },
  {
    name: '^(a|a)*$ over 1.4 MB of a and one !',
    rules: [{ rule: "self.s.matches('^(a|a)*$')" }],
    bounds: { sMax: 1_500_000 },
    spec: () => ({ s: `${'a'.repeat(1_400_000)}!` }),
  },
  {
    name: '(.*a){20} over 1.4 MB of b',
    rules: [{ rule: "self.s.matches('(.*a){20}')" }],
    bounds: { sMax: 1_500_000 },
    spec: () => ({ s: 'b'.repeat(1_400_000) }),
  },
  {
    name: 'a failing rule whose messageExpression builds 3 MB',
    rules: [{ rule: 'self.s.size() < 10', messageExpression: 'self.s + self.s + self.s' }],
    bounds: { sMax: 1_100_000 },
    spec: () => ({ s: 'm'.repeat(1_000_000) }),
  },
  {
    name: 'a failing rule whose messageExpression fails',
    rules: [{ rule: 'self.s.size() < 1', messageExpression: 'string(1 / (self.s.size() - self.s.size()))' }],
    bounds: { sMax: 16 },
    spec: () => ({ s: 'abc' }),
  },
];

describe('hostile CEL', () => {
  describe('refused at CRD write', () => {
    for (const c of REFUSED_AT_CRD_WRITE) {
      it(c.name, () => fuzz.check((s) => crdThenObject(s, specSchema(c.rules)), { expect4xx: true }));
    }
  });

  describe('invalid regex literals: refused at CRD write, or when the object is written', () => {
    for (const c of INVALID_REGEX_LITERALS) {
      it(c.name, () =>
        fuzz.check((s) => crdThenObject(s, specSchema([{ rule: c.rule }], { sMax: 16 }), { s: 'aaaa' }), {
          expect4xx: true,
        }),
      );
    }
  });

  describe('any answer but a 5xx (kube accepts these)', () => {
    // No limit on a message's length; a lone surrogate is U+FFFD once decoded; the rule count is
    // unbounded; cel-go folds a run of unary operators (`'!'+ member` is one grammar rule), so
    // 5,000 of them nest nothing and meet no recursion limit.
    const rules: { name: string; rules: Rule[] }[] = [
      { name: 'negations 5,000 deep', rules: [{ rule: `${'!'.repeat(5000)}true` }] },
      { name: 'unary minus 5,001 deep', rules: [{ rule: `${'-'.repeat(5001)}1 < 0` }] },
      { name: 'a 200 KB message', rules: [{ rule: 'true', message: 'm'.repeat(KB200) }] },
      { name: 'a lone surrogate in the rule', rules: [{ rule: "self.s != '\ud800'" }] },
      { name: '10,000 rules', rules: Array.from({ length: 10_000 }, (_, i) => ({ rule: `self.s != 'v${i}'` })) },
    ];
    for (const c of rules) it(c.name, () => fuzz.check((s) => crdThenObject(s, specSchema(c.rules), { s: 'ok' })));
  });

  describe('refused at CRD write, or when the object is written', () => {
    for (const c of REFUSED_AT_OBJECT_WRITE) {
      it(c.name, () =>
        fuzz.check((s) => crdThenObject(s, specSchema(c.rules, c.bounds), c.spec()), { expect4xx: true, during: true }),
      );
    }
  });

  it('random rules from CEL tokens: any answer but a 5xx', async () => {
    // Token soup, so that most rules are syntax errors and some parse: the compiler's every branch.
    const token = fc.constantFrom(
      'self',
      '.',
      's',
      'p',
      'items',
      '(',
      ')',
      '[',
      ']',
      '{',
      '}',
      ',',
      ':',
      '?',
      '!',
      '-',
      '+',
      '*',
      '/',
      '%',
      '==',
      '!=',
      '<',
      '&&',
      '||',
      'true',
      'null',
      "'a'",
      '"',
      '1',
      '1.5',
      '9223372036854775808',
      'size',
      'matches',
      'all',
      'exists',
      'map',
      'x',
      'has',
      'oldSelf',
      'int',
      'string',
      'b"\\xff"',
      '\\',
      "'''",
      ' ',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(token, { minLength: 1, maxLength: 40 }), async (tokens) => {
        const problems = await fuzz.problems((s) => crdThenObject(s, specSchema([{ rule: tokens.join('') }])));
        if (problems.length) throw new Error(problems.join('; '));
      }),
      { ...FC_PARAMS, numRuns: 40 },
    );
  });
});
