// bench/cel: x-kubernetes-validations at object write, each figure beside a baseline from the same run.
//
//   eval:   evaluations/s of a rule through CompiledRules.validate, the path every create and update
//           takes (JSON to CEL values, the cost meter, the compiled program, the result check):
//           the Cache rule `self.maxSize >= self.size`, and `self.items.all(i, i.size <= self.maxSize)`
//           over 100 items. Baseline: the same logic as a plain JS function over the same JSON.
//   create: creates/s through a real server process (the built binary, SQLite store, HTTPS, 32 in
//           flight) of the Cache CRD with its rule. Baseline: the same CRD without the rule, in the
//           same server, runs taken in turns (order swapped every turn), medians. Target: the rule costs at most 15% (ratio ≥ 0.85).
//
// Run: make build && make bench ONLY=cel [QUICK=1]
import { compileSchemaRules } from '../crd/cel/compile.js';
import type { CompiledRules } from '../crd/cel/eval.js';
import type { JSONSchemaProps } from '../apimachinery/apis/apiextensions.js';
import { startServerProcess } from '../test/helpers/server-process.js';
import { benchClient, installCRD } from './client.js';
import { inFlight, metric, paired, quick, rate, report, type Metric } from './report.js';

/**
 * Medians of `runs` turns of a and b, the order swapped every turn (ab, ba, ab, ...) so that a server
 * still warming up or slowing down favours neither side.
 */
async function alternating(
  runs: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<[number, number]> {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      xs.push(await a());
      ys.push(await b());
    } else {
      ys.push(await b());
      xs.push(await a());
    }
  }
  const median = (v: number[]): number => [...v].sort((p, q) => p - q)[Math.floor((v.length - 1) / 2)]!;
  return [median(xs), median(ys)];
}

const N = {
  runs: quick ? 3 : 7,
  simpleEvals: quick ? 50_000 : 300_000,
  allEvals: quick ? 2_000 : 10_000,
  creates: quick ? 600 : 2_000,
  /** Creates of each kind before measuring: the server's JIT needs about this many to settle. */
  warmCreates: 800,
  createRuns: quick ? 4 : 8,
};
const CREATES_IN_FLIGHT = 32;
const TARGET_RULE_SHARE = 0.15;

// ---------------------------------------------------------------------------------------------
// 1. Rule evaluation

const cacheSpecSchema = (withRule: boolean): JSONSchemaProps => ({
  type: 'object',
  ...(withRule
    ? { 'x-kubernetes-validations': [{ rule: 'self.maxSize >= self.size', message: 'maxSize must be >= size' }] }
    : {}),
  properties: { size: { type: 'integer' }, maxSize: { type: 'integer' }, engine: { type: 'string' } },
});

const listSchema: JSONSchemaProps = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: 'self.items.all(i, i.size <= self.maxSize)', message: 'every item must fit' }],
  properties: {
    maxSize: { type: 'integer' },
    items: {
      type: 'array',
      maxItems: 100,
      items: { type: 'object', properties: { name: { type: 'string', maxLength: 63 }, size: { type: 'integer' } } },
    },
  },
};

function compiled(schema: JSONSchemaProps): CompiledRules {
  const { errors, rules } = compileSchemaRules(schema, 'spec.versions[0].schema.openAPIV3Schema.properties[spec]');
  if (errors.length) throw new Error(`bench rule does not compile: ${JSON.stringify(errors)}`);
  return rules;
}

/** Evaluations/s of `validate` over `value` (each must pass), `n` per measurement. */
function evalRate(rules: CompiledRules, value: unknown, n: number): Promise<number> {
  return rate(n, () => {
    let failed = 0;
    for (let i = 0; i < n; i++) failed += rules.validate(value, undefined).errors.length;
    if (failed) throw new Error('the bench value fails its rule');
  });
}

/** Evaluations/s of a plain function over `value` (the result is used, so the loop stays). */
function jsRate<T>(fn: (v: T) => boolean, value: T, n: number): Promise<number> {
  return rate(n, () => {
    let passed = 0;
    for (let i = 0; i < n; i++) if (fn(value)) passed++;
    if (passed !== n) throw new Error('the bench value fails the baseline');
  });
}

async function evaluation(): Promise<Metric[]> {
  const simple = compiled(cacheSpecSchema(true));
  const cache = { size: 5, maxSize: 10, engine: 'redis' };
  const simpleJs = (v: typeof cache): boolean => v.maxSize >= v.size;

  const all = compiled(listSchema);
  const list = { maxSize: 1000, items: Array.from({ length: 100 }, (_, i) => ({ name: `item-${i}`, size: i * 7 })) };
  const allJs = (v: typeof list): boolean => v.items.every((i) => i.size <= v.maxSize);

  // Warm-up: JIT both sides before measuring.
  await evalRate(simple, cache, N.simpleEvals / 5);
  await jsRate(simpleJs, cache, N.simpleEvals);
  await evalRate(all, list, N.allEvals / 5);
  await jsRate(allJs, list, N.allEvals);

  const [s, sb] = await paired(
    N.runs,
    () => evalRate(simple, cache, N.simpleEvals),
    () => jsRate(simpleJs, cache, N.simpleEvals * 20),
  );
  const [a, ab] = await paired(
    N.runs,
    () => evalRate(all, list, N.allEvals),
    () => jsRate(allJs, list, N.allEvals * 20),
  );
  return [
    metric('simple rule evals/s (self.maxSize >= self.size)', s, sb, 'evals/s', 'higher'),
    metric('all() over 100 items evals/s', a, ab, 'evals/s', 'higher'),
  ];
}

// ---------------------------------------------------------------------------------------------
// 2. Creates through the server

const GROUP = 'cel.bench.example.com';
const NS = 'default';

async function creates(): Promise<Metric[]> {
  const server = await startServerProcess({ args: ['--log-level', 'warn'] });
  try {
    const c = benchClient(server);
    const ruled = {
      path: await installCRD(c, GROUP, 'caches', 'Cache', cacheSpecSchema(true), NS),
      kind: 'Cache',
      next: 0,
    };
    const plain = {
      path: await installCRD(c, GROUP, 'plaincaches', 'PlainCache', cacheSpecSchema(false), NS),
      kind: 'PlainCache',
      next: 0,
    };

    // The rule is really there: the Cache lab's bad object is refused.
    const bad = await c.call(
      'POST',
      ruled.path,
      JSON.stringify({
        apiVersion: `${GROUP}/v1`,
        kind: 'Cache',
        metadata: { name: 'inverted' },
        spec: { size: 5, maxSize: 2, engine: 'redis' },
      }),
    );
    if (bad.status !== 422 || !bad.body.includes('maxSize must be >= size'))
      throw new Error(`the rule did not refuse {size: 5, maxSize: 2}: ${bad.status} ${bad.body.slice(0, 200)}`);

    const run = (t: typeof ruled, n: number) => (): Promise<number> =>
      rate(n, () =>
        inFlight(n, CREATES_IN_FLIGHT, async () => {
          const i = t.next++;
          const body = JSON.stringify({
            apiVersion: `${GROUP}/v1`,
            kind: t.kind,
            metadata: { name: `c-${i}` },
            spec: { size: i % 50, maxSize: 64, engine: 'redis' },
          });
          const r = await c.call('POST', t.path, body);
          if (r.status !== 201) throw new Error(`create ${t.kind} c-${i}: ${r.status} ${r.body.slice(0, 200)}`);
        }),
      );
    // Warm-up of both kinds (TLS sessions, JIT, the CRD handlers).
    await run(ruled, N.warmCreates)();
    await run(plain, N.warmCreates)();
    const [withRule, without] = await alternating(N.createRuns, run(ruled, N.creates), run(plain, N.creates));
    return [metric('creates/s, Cache CRD with its rule vs without', withRule, without, 'creates/s', 'higher')];
  } finally {
    await server.stop();
  }
}

const metrics = [...(await evaluation()), ...(await creates())];
report('cel', 'baseline', metrics);
const share = 1 - metrics[2]!.ratio;
console.log(
  `the rule costs ${(share * 100).toFixed(1)}% of create throughput (target: at most ${TARGET_RULE_SHARE * 100}%)${share <= TARGET_RULE_SHARE ? '' : ' - OVER TARGET'}`,
);
