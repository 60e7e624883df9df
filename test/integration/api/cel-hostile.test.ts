// Hostile CEL over HTTP: rules kube refuses for their size or nesting answered 422 at CRD write
// (not a stack overflow's 500), and objects carrying hostile regexes for a rule that matches a
// pattern taken from the object, or regex work past the request's budget, refused with a 4xx
// while the server keeps answering /readyz. What would hold the event loop (compiling a pattern,
// running a match) is counted, not timed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regexCache, regexCounters } from '../../../cel/regex.js';
import { type ServerHandle, startServer } from '../../../server/index.js';
import { type ApiResponse, apiClient } from '../../helpers/api-client.js';
import { CRDS_PATH, installCrd, simpleCrd } from '../../helpers/crds.js';

const message = (r: ApiResponse): string => (r.json as { message: string }).message;

let server: ServerHandle;
let call: ReturnType<typeof apiClient>;

/** The CRD of `plural` whose `spec` has this schema. */
const crdOf = (plural: string, spec: Record<string, unknown>) =>
  simpleCrd('hostile.example.com', plural, { type: 'object', properties: { spec } });
const install = (plural: string, spec: Record<string, unknown>): Promise<void> => installCrd(call, crdOf(plural, spec));

/** Polls /readyz one request after another until `work` settles, each answer a 200; how many there were. */
async function readyzMeanwhile<T>(work: Promise<T>): Promise<{ result: T; polls: number }> {
  let done = false;
  const result = work.finally(() => (done = true));
  let polls = 0;
  while (!done) {
    const r = await call('GET', '/readyz');
    expect(r.status).toBe(200);
    polls++;
  }
  return { result: await result, polls };
}

/**
 * What `work` cost the regex engine: patterns compiled and matches run (cel/regex.ts's counters;
 * the server runs in this process). What would hold the event loop is counted here, not timed.
 */
async function regexWork<T>(work: () => Promise<T>): Promise<{ result: T; compiles: number; runs: number }> {
  const before = { ...regexCounters };
  const result = await work();
  return { result, compiles: regexCounters.compiles - before.compiles, runs: regexCounters.runs - before.runs };
}

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  call = apiClient(server);
  // ⌈(10 · 4 + 1) · 0.1⌉ · ⌈(3 MiB - 2) · 0.25⌉ = 3,932,160 (kube sizes a string of maxLength n at
  // 4n bytes): within kube's estimated-cost limit, so kube accepts this CRD and any pattern up to
  // the request size can reach the rule.
  await install('matchers', {
    type: 'object',
    'x-kubernetes-validations': [{ rule: 'self.s.matches(self.p)' }],
    properties: { s: { type: 'string', maxLength: 10 }, p: { type: 'string' } },
  });
});
afterAll(async () => {
  await server?.close();
});

const matchers = '/apis/hostile.example.com/v1/namespaces/default/matchers';
const matcher = (name: string, p: string) => ({
  apiVersion: 'hostile.example.com/v1',
  kind: 'Matcher',
  metadata: { name },
  spec: { s: 'aaaa', p },
});

describe('a hostile pattern from the object', () => {
  it("a 300 KB `a{0,9}` pattern is refused with Go's error before it is compiled, and /readyz answers meanwhile", async () => {
    const p = 'a{0,9}'.repeat(50_000);
    const {
      result: { result: r, polls },
      compiles,
      runs,
    } = await regexWork(() => readyzMeanwhile(call('POST', matchers, { body: matcher('big', p) })));
    expect(r.status).toBe(422);
    // The message quotes the whole pattern, as Go's does.
    const head =
      'Matcher.hostile.example.com "big" is invalid: spec: Invalid value: "object": error parsing regexp: expression too large: `';
    const tail = '` evaluating rule: self.s.matches(self.p)';
    expect(message(r) === `${head}${p}${tail}`).toBe(true);
    expect(polls).toBeGreaterThan(0);
    // Refused by its estimated size: never compiled, nothing matched.
    expect({ compiles, runs }).toEqual({ compiles: 0, runs: 0 });
  });

  it('25 distinct large patterns: every one a 4xx, none compiled or cached, /readyz answering meanwhile', async () => {
    // One after another: each is refused before it is compiled, so nothing accumulates (the
    // process's RSS grew past 3 GB when each was compiled and kept).
    const posts = (async () => {
      const out: ApiResponse[] = [];
      for (let i = 0; i < 25; i++)
        out.push(await call('POST', matchers, { body: matcher(`big-${i}`, `x${i}` + 'a{0,9}'.repeat(50_000)) }));
      return out;
    })();
    const {
      result: { result, polls },
      compiles,
      runs,
    } = await regexWork(() => readyzMeanwhile(posts));
    expect(result.map((r) => r.status)).toEqual(Array(25).fill(422));
    expect(polls).toBeGreaterThan(0);
    expect({ compiles, runs }).toEqual({ compiles: 0, runs: 0 });
    // The server runs in this process: its regex cache is this module's.
    expect(Array.from({ length: 25 }, (_, i) => regexCache.compiled(`x${i}` + 'a{0,9}'.repeat(50_000)))).toEqual(
      Array(25).fill(false),
    );
  });

  it("a pattern that does not compile is a 422 with Go's text; a good one matches", async () => {
    const bad = await call('POST', matchers, { body: matcher('paren', '(') });
    expect([bad.status, message(bad)]).toEqual([
      422,
      'Matcher.hostile.example.com "paren" is invalid: spec: Invalid value: "object": error parsing regexp: missing closing ): `(` evaluating rule: self.s.matches(self.p)',
    ]);
    expect((await call('POST', matchers, { body: matcher('good', '^a+$') })).status).toBe(201);
    expect(regexCache.compiled('^a+$')).toBe(true);
  });
});

describe('rules kube refuses at CRD write', () => {
  const cases: { name: string; rule: string; want: string }[] = [
    {
      name: '5,000 nested parentheses',
      rule: '('.repeat(5000) + 'true' + ')'.repeat(5000),
      want: 'compilation failed: ERROR: <input>:-1:0: expression recursion limit exceeded: 250',
    },
    {
      name: 'a chain of 5,000 selects',
      rule: 'self' + '.a'.repeat(5000) + ' == 1',
      want: 'compilation failed: ERROR: <input>:-1:0: max recursion depth exceeded',
    },
    {
      name: 'a 200 KB rule',
      rule: 'true' + ' && true'.repeat(25_000),
      want: 'compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: size: 200004, limit 100000',
    },
    {
      name: 'an invalid regex literal',
      rule: "self.a.matches('(')",
      want: 'compilation failed: ERROR: <input>:1:16: invalid matches argument',
    },
  ];
  it.each(cases)('$name: 422, not 500', async ({ name, rule, want }) => {
    const plural = `deep${cases.findIndex((c) => c.name === name)}s`;
    const r = await call('POST', CRDS_PATH, {
      body: crdOf(plural, {
        type: 'object',
        'x-kubernetes-validations': [{ rule }],
        properties: { a: { type: 'string', maxLength: 10 } },
      }),
    });
    expect(r.status).toBe(422);
    expect(message(r)).toContain(
      `.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}`,
    );
    expect(message(r)).toContain(want);
  });

  it('5,000 `!` is accepted, as kube accepts it', async () => {
    const r = await call('POST', CRDS_PATH, {
      body: crdOf('nots', {
        type: 'object',
        'x-kubernetes-validations': [{ rule: '!'.repeat(5000) + "(self.a == '')" }],
        properties: { a: { type: 'string', maxLength: 10 } },
      }),
    });
    expect(r.status).toBe(201);
  });
});

describe('regex cost', () => {
  it("40 rules matching over a 1.4 MB string: refused with kube's budget error", async () => {
    await install('budgets', {
      type: 'object',
      'x-kubernetes-validations': Array.from({ length: 40 }, (_, i) => ({
        rule: `!self.s.matches('(a+)+$')${' '.repeat(i)}`,
      })),
      properties: { s: { type: 'string' } },
    });
    const { result: r, runs } = await regexWork(() =>
      call('POST', '/apis/hostile.example.com/v1/namespaces/default/budgets', {
        body: {
          apiVersion: 'hostile.example.com/v1',
          kind: 'Budget',
          metadata: { name: 'b' },
          spec: { s: 'a'.repeat(1_400_000) },
        },
      }),
    );
    expect(r.status).toBe(422);
    expect(message(r)).toContain(
      'spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    );
    // The regex work budget refuses the first match (1,400,001 × the program's size is over it):
    // none of the 40 runs.
    expect(runs).toBe(0);
  });

  it('a 24-character pattern over 140 KB: 422 without matching (re2js: ~24 s), /readyz answering meanwhile', async () => {
    // kube charges ⌈140,001 · 0.1⌉ · ⌈24 · 0.25⌉ = 84,006 and would run it; the pattern is a
    // 5,000-instruction program, over the regex work budget (cel/regex.ts REGEX_WORK_BUDGET).
    const pattern = '(?:a|aa){0,999}[^a]{2}';
    await install('pathos', {
      type: 'object',
      'x-kubernetes-validations': [{ rule: `!self.s.matches('${pattern}')` }],
      properties: { s: { type: 'string', maxLength: 150_000 } },
    });
    const body = {
      apiVersion: 'hostile.example.com/v1',
      kind: 'Patho',
      metadata: { name: 'p' },
      spec: { s: 'a'.repeat(140_000) },
    };
    const {
      result: { result: r, polls },
      runs,
    } = await regexWork(() =>
      readyzMeanwhile(call('POST', '/apis/hostile.example.com/v1/namespaces/default/pathos', { body })),
    );
    expect(r.status).toBe(422);
    expect(message(r)).toBe(
      'Patho.hostile.example.com "p" is invalid: spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    );
    expect(polls).toBeGreaterThan(0);
    // The search is refused before it runs: the seconds re2js would spend are never spent.
    expect(runs).toBe(0);
  });
});
