// bench/cel: x-kubernetes-validations, each figure beside a baseline from the same run.
//
//   eval:    evaluations/s of a rule through the compiled rules' `validate`, the path every create
//            and update takes (JSON to CEL values, the cost meter, the compiled program, the result
//            check): `self.maxSize >= self.size`, and `self.items.all(i, i.size <= self.maxSize)`
//            over 100 items. Baseline: the same logic as a plain JS function over the same JSON.
//   create:  creates/s of a gateway-api HTTPRoute (hostnames, rules with matches, filters,
//            backendRefs) through the built binary (SQLite) driven by wrk (bench/wrk.ts), its CRD
//            as ../shared/realworld publishes it. Baseline: the same CRD stripped of every rule, in
//            another group of the same server; runs in turns, medians. Target: the rules cost at
//            most 15% (ratio ≥ 0.85). Beside it, the server's CPU time per create (/proc, all its
//            threads, over each run) on both sides, which a loaded machine moves least: at most
//            1/0.85 of the plain create's. Each turn's two ratios are printed too. A rule this
//            server refuses today is left out of both, and the output says which.
//   compile: compileSchemaRules, what the server runs at CRD create, over every version's schema
//            of every CRD in ../shared/realworld/crds, each pass in a fresh node process on the
//            built library (a first compile, as a server meets the corpus: no cache, no JIT).
//            Target: under 1 s. Baseline: none, or with CEL_COMPILE_BASELINE=<checkout> that
//            checkout's built library, passes in turns (a change measured against its parent).
//
// Without ../shared/realworld, create and compile print one line and do not run.
//
// Run: make build && make bench ONLY=cel [QUICK=1] [CEL_ROWS=compile|create] [CEL_COMPILE_BASELINE=<checkout>]
//   (CEL_ROWS: the compile row alone, or the create rows alone; BENCH_BIN=<a checkout's
//   bin/mini-apiserver> runs the create rows on that build)
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { JSONSchemaProps, ValidationRule } from '../apimachinery/apis/apiextensions.js';
import { compileSchemaRules } from '../crd/cel/compile.js';
import { REPO_ROOT, startServerProcess } from '../test/helpers/server-process.js';
import { benchClient, createCRD } from './client.js';
import { cpuMs } from './bare.js';
import { type Metric, inTurns, median, metric, paired, quick, rate, report, verdict } from './report.js';
import { type Load, WRK_SECONDS, medianLoad, postBody, wrk } from './wrk.js';

type CompiledRules = ReturnType<typeof compileSchemaRules>['rules'];

const N = {
  runs: quick ? 3 : 7,
  simpleEvals: quick ? 50_000 : 300_000,
  allEvals: quick ? 2_000 : 10_000,
  createRuns: quick ? 2 : 6,
  /**
   * Seconds a create run lasts: an HTTPRoute create costs milliseconds, so that a run holds
   * hundreds of them and its start (64 TLS handshakes) weighs little.
   */
  createSeconds: 2 * WRK_SECONDS,
  compilePasses: quick ? 1 : 5,
};
const TARGET = { ruleShare: 0.15, compileMs: 1000 };
const CORPUS = join(REPO_ROOT, '..', 'shared', 'realworld', 'crds');
const ROWS = process.env.CEL_ROWS;
const COMPILE_BASELINE = process.env.CEL_COMPILE_BASELINE;

// ---------------------------------------------------------------------------------------------
// 1. Rule evaluation

const cacheSpecSchema: JSONSchemaProps = {
  type: 'object',
  'x-kubernetes-validations': [{ rule: 'self.maxSize >= self.size', message: 'maxSize must be >= size' }],
  properties: { size: { type: 'integer' }, maxSize: { type: 'integer' }, engine: { type: 'string' } },
};

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
  const simple = compiled(cacheSpecSchema);
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
// 2. The real-world corpus

interface CRD {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    group: string;
    names: { plural: string; kind: string };
    versions: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: JSONSchemaProps } }[];
  };
}

/** Every CRD of the corpus, as `<project>/<file>`; reading the YAML takes seconds, so once. */
function readCorpus(): { source: string; crd: CRD }[] {
  const out: { source: string; crd: CRD }[] = [];
  for (const project of readdirSync(CORPUS).sort())
    for (const file of readdirSync(join(CORPUS, project)).filter((f) => /\.ya?ml$/.test(f))) {
      for (const doc of parseAllDocuments(readFileSync(join(CORPUS, project, file), 'utf8'))) {
        const crd = doc.toJS() as CRD | null;
        if ((crd as { kind?: string } | null)?.kind === 'CustomResourceDefinition')
          out.push({ source: `${project}/${file}`, crd: crd! });
      }
    }
  return out;
}

/** Each x-kubernetes-validations list of a schema, found without recursion (schemas nest deep). */
function ruleLists(schema: JSONSchemaProps): ValidationRule[][] {
  const lists: ValidationRule[][] = [];
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k === 'x-kubernetes-validations' && Array.isArray(x)) lists.push(x as ValidationRule[]);
        else stack.push(x);
      }
  }
  return lists;
}

const schemaPath = (version: number): string => `spec.versions[${version}].schema.openAPIV3Schema`;

/** One pass in a fresh process: the schemas' compile times, each's error count, and the total. */
const COMPILE_SOURCE = `
const [compileUrl, file] = process.argv.slice(1);
const { compileSchemaRules } = await import(compileUrl);
const { readFileSync } = await import('node:fs');
const schemas = JSON.parse(readFileSync(file, 'utf8'));
const each = [];
const start = performance.now();
const cpu = process.cpuUsage();
for (const s of schemas) {
  const t = performance.now();
  const { errors } = compileSchemaRules(s.schema, s.path);
  each.push({ ms: performance.now() - t, errors: errors.length });
}
const { user, system } = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ totalMs: performance.now() - start, cpuMs: (user + system) / 1000, each }));
`;

interface CompilePass {
  totalMs: number;
  /** The process's CPU time over the pass (all its threads): on a loaded machine, less noisy than totalMs. */
  cpuMs: number;
  each: { ms: number; errors: number }[];
}

/** One pass over the library built in `checkout`. */
function compilePass(checkout: string, file: string): Promise<CompilePass> {
  const compileUrl = pathToFileURL(join(checkout, 'dist', 'crd', 'cel', 'compile.js')).href;
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--input-type=module', '-e', COMPILE_SOURCE, compileUrl, file],
      { maxBuffer: 16 << 20 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`compile pass: ${err.message} ${stderr}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

async function compileCorpus(corpus: { source: string; crd: CRD }[], dir: string): Promise<Metric> {
  const schemas = corpus.flatMap(({ source, crd }) =>
    crd.spec.versions.flatMap((v, i) =>
      v.schema?.openAPIV3Schema
        ? [{ crd: `${source} ${crd.metadata.name} ${v.name}`, path: schemaPath(i), schema: v.schema.openAPIV3Schema }]
        : [],
    ),
  );
  const ruleCounts = schemas.map((s) => ruleLists(s.schema).reduce((n, l) => n + l.length, 0));
  const rules = ruleCounts.reduce((n, c) => n + c, 0);
  const file = join(dir, 'corpus-schemas.json');
  writeFileSync(file, JSON.stringify(schemas));
  const sides = [() => compilePass(REPO_ROOT, file)];
  if (COMPILE_BASELINE) sides.push(() => compilePass(COMPILE_BASELINE, file));
  const [passes, baseline] = (await inTurns(N.compilePasses, sides)) as [CompilePass[], CompilePass[]?];
  const ms = median(passes.map((p) => p.totalMs));
  const baselineMs = baseline ? median(baseline.map((p) => p.totalMs)) : NaN;
  if (baseline)
    console.log(
      `compile: baseline ${COMPILE_BASELINE}: each pass ${baseline.map((p) => p.totalMs.toFixed(0)).join(', ')} ms (CPU ${baseline.map((p) => p.cpuMs.toFixed(0)).join(', ')} ms), ` +
        `${baseline.at(-1)!.each.filter((e) => e.errors > 0).length} schemas refused`,
    );
  const last = passes.at(-1)!;
  const slowest = last.each
    .map((e, i) => ({ ...e, crd: schemas[i]!.crd }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5);
  // Where the time goes: a schema without a rule has nothing to compile.
  const ruleless = last.each.filter((_, i) => ruleCounts[i] === 0);
  console.log(
    `compile: ${rules} rules in ${schemas.length} schemas of ${corpus.length} CRDs; each pass: ${passes.map((p) => p.totalMs.toFixed(0)).join(', ')} ms (CPU ${passes.map((p) => p.cpuMs.toFixed(0)).join(', ')} ms), ` +
      `of the last ${ruleless.reduce((n, e) => n + e.ms, 0).toFixed(0)} ms on the ${ruleless.length} schemas without a rule; ` +
      `${last.each.filter((e) => e.errors > 0).length} schemas refused (CEL this server does not take yet); slowest: ` +
      slowest.map((s) => `${s.crd} ${s.ms.toFixed(0)} ms`).join(', '),
  );
  return {
    ...metric(
      `compile of every rule of ../shared/realworld (${rules} rules, ${schemas.length} schemas), first compile in a fresh process`,
      ms,
      baselineMs,
      'ms',
      'lower',
    ),
    target: verdict(`≤ ${TARGET.compileMs} ms`, ms <= TARGET.compileMs),
  };
}

// ---------------------------------------------------------------------------------------------
// 3. HTTPRoute creates, with and without the CRD's rules

const NS = 'default';
const HTTPROUTES = 'gateway-api-standard/gateway.networking.k8s.io_httproutes.yaml';
/** The group of the rule-less copy: still under k8s.io, so the CRD's api-approved annotation stays valid. */
const PLAIN_GROUP = 'bench.gateway.networking.k8s.io';

/** A storefront's route: two parents, two hostnames, header, query and method matches, five filter types, weighted backends, timeouts. */
const httpRoute = (apiVersion: string) => ({
  apiVersion,
  kind: 'HTTPRoute',
  metadata: { name: '', namespace: NS, labels: { app: 'storefront', team: 'web' } },
  spec: {
    parentRefs: [
      { name: 'public-gateway', namespace: 'infra', sectionName: 'https' },
      { name: 'public-gateway', namespace: 'infra', sectionName: 'http' },
    ],
    hostnames: ['shop.example.com', 'www.shop.example.com'],
    rules: [
      {
        matches: [
          {
            path: { type: 'PathPrefix', value: '/api/v2' },
            headers: [{ name: 'x-canary', value: 'true' }],
            method: 'GET',
          },
          { path: { type: 'PathPrefix', value: '/api/v2' }, queryParams: [{ name: 'canary', value: '1' }] },
        ],
        filters: [
          {
            type: 'RequestHeaderModifier',
            requestHeaderModifier: { set: [{ name: 'x-route', value: 'api-v2-canary' }], remove: ['x-debug'] },
          },
          {
            type: 'ResponseHeaderModifier',
            responseHeaderModifier: { add: [{ name: 'cache-control', value: 'no-store' }] },
          },
        ],
        backendRefs: [{ name: 'api-v2-canary', port: 8080 }],
        timeouts: { request: '10s', backendRequest: '5s' },
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/api/v2' } }],
        backendRefs: [
          { name: 'api-v2', port: 8080, weight: 90 },
          { name: 'api-v2-next', port: 8080, weight: 10 },
        ],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/legacy' } }],
        filters: [
          {
            type: 'URLRewrite',
            urlRewrite: {
              hostname: 'legacy.internal',
              path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/v1' },
            },
          },
        ],
        backendRefs: [{ name: 'legacy', port: 80 }],
      },
      {
        matches: [{ path: { type: 'Exact', value: '/checkout' } }],
        filters: [
          {
            type: 'RequestRedirect',
            requestRedirect: { scheme: 'https', hostname: 'checkout.example.com', statusCode: 301 },
          },
        ],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/' } }],
        filters: [
          { type: 'RequestMirror', requestMirror: { backendRef: { name: 'shadow', port: 8080 }, percent: 10 } },
        ],
        backendRefs: [{ name: 'web', port: 80 }],
      },
    ],
  },
});

/**
 * The rule a compile error names by its field (`<root>.properties[spec]...x-kubernetes-validations[3].rule`):
 * its list and index; undefined when the error is not about one rule.
 */
function ruleNamed(
  schema: JSONSchemaProps,
  root: string,
  field: string,
): { list: ValidationRule[]; index: number } | undefined {
  if (!field.startsWith(root)) return undefined;
  const step = /\.properties\[([^\]]+)\]|\.(items|additionalProperties)|\.x-kubernetes-validations\[(\d+)\]/y;
  step.lastIndex = root.length;
  let node: JSONSchemaProps | undefined = schema;
  for (let m = step.exec(field); m && node; m = step.exec(field)) {
    if (m[1] !== undefined) node = node.properties?.[m[1]];
    else if (m[2] !== undefined) node = node[m[2] as 'items' | 'additionalProperties'] as JSONSchemaProps | undefined;
    else
      return node['x-kubernetes-validations']
        ? { list: node['x-kubernetes-validations'], index: Number(m[3]) }
        : undefined;
  }
  return undefined;
}

/**
 * Leaves out of `crd` the rules this server refuses today (through the compile entry point the
 * server runs), and says which; undefined when an error is not about one rule.
 */
function withoutRefusedRules(crd: CRD): { crd: CRD; kept: number; refused: string[] } | undefined {
  const copy = structuredClone(crd);
  const refused: string[] = [];
  for (const [i, v] of copy.spec.versions.entries()) {
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) continue;
    for (;;) {
      const { errors } = compileSchemaRules(schema, schemaPath(i));
      if (errors.length === 0) break;
      const named = errors.map((e) => ruleNamed(schema, schemaPath(i), e.field));
      if (named.some((n) => n === undefined)) {
        console.log(
          `cel: ${crd.metadata.name} ${v.name} is refused other than rule by rule: ${errors[0]!.field}: ${errors[0]!.detail.split('\n')[0]}`,
        );
        return undefined;
      }
      const byList = new Map<ValidationRule[], Set<number>>();
      for (const n of named) byList.set(n!.list, (byList.get(n!.list) ?? new Set()).add(n!.index));
      // Highest index first, so the indexes still to remove stay valid.
      for (const [list, indexes] of byList)
        for (const index of [...indexes].sort((a, b) => b - a)) {
          if (v.storage) refused.push(list[index]!.message ?? list[index]!.rule);
          list.splice(index, 1);
        }
    }
  }
  const storage = copy.spec.versions.find((v) => v.storage)?.schema?.openAPIV3Schema;
  const kept = storage ? ruleLists(storage).reduce((n, l) => n + l.length, 0) : 0;
  return { crd: copy, kept, refused };
}

/** `crd` without any rule, in PLAIN_GROUP. */
function withoutRules(crd: CRD): CRD {
  const copy = structuredClone(crd);
  for (const v of copy.spec.versions)
    if (v.schema?.openAPIV3Schema) for (const list of ruleLists(v.schema.openAPIV3Schema)) list.length = 0;
  copy.spec.group = PLAIN_GROUP;
  copy.metadata.name = `${copy.spec.names.plural}.${PLAIN_GROUP}`;
  return copy;
}

async function httpRouteCreates(original: CRD, dir: string): Promise<Metric[]> {
  const ruled = withoutRefusedRules(original);
  if (!ruled) return [];
  if (ruled.refused.length > 0)
    console.log(
      `cel: ${ruled.refused.length} of the HTTPRoute's rules are refused by this server today and left out of both sides: ${ruled.refused.map((r) => JSON.stringify(r)).join('; ')}`,
    );
  const plain = withoutRules(ruled.crd);
  const version = original.spec.versions.find((v) => v.storage)!.name;
  const server = await startServerProcess({ args: ['--log-level', 'warn'] });
  const c = benchClient(server);
  try {
    const plural = original.spec.names.plural;
    const paths = {
      ruled: `/apis/${original.spec.group}/${version}/namespaces/${NS}/${plural}`,
      plain: `/apis/${PLAIN_GROUP}/${version}/namespaces/${NS}/${plural}`,
    };
    await createCRD(c, ruled.crd, paths.ruled);
    await createCRD(c, plain, paths.plain);
    const route = (group: string) => httpRoute(`${group}/${version}`);
    const bodies = {
      ruled: postBody(dir, 'httproute.json', route(original.spec.group)),
      plain: postBody(dir, 'plain-httproute.json', route(PLAIN_GROUP)),
    };
    // The route passes every rule; the rules are there: a filter holding another type's field is refused.
    for (const side of ['ruled', 'plain'] as const) {
      const r = await c.call('POST', paths[side], readFileSync(bodies[side], 'utf8').replace('{{name}}', 'check'));
      if (r.status !== 201) throw new Error(`the bench's HTTPRoute (${side}): ${r.status} ${r.body.slice(0, 500)}`);
    }
    const bad = route(original.spec.group);
    bad.metadata.name = 'bad';
    bad.spec.rules[0]!.filters![1]!.type = 'RequestHeaderModifier';
    const refusal = await c.call('POST', paths.ruled, JSON.stringify(bad));
    if (refusal.status !== 422 || !refusal.body.includes('filter.responseHeaderModifier must be nil'))
      throw new Error(
        `the HTTPRoute's rules did not refuse a misplaced filter: ${refusal.status} ${refusal.body.slice(0, 300)}`,
      );

    let run = 0;
    const pid = server.child.pid!;
    // A run's rate, and the server's CPU time per create over it (bench/bare's cpuMs, all threads).
    const creates = (side: 'ruled' | 'plain') => async (): Promise<Load & { cpuUs: number }> => {
      const before = cpuMs(pid);
      const load = await wrk(`${server.url}${paths[side]}`, {
        token: server.token,
        seconds: N.createSeconds,
        post: { file: bodies[side], prefix: `r${run++}` },
      });
      return { ...load, cpuUs: ((cpuMs(pid) - before) * 1000) / load.requests };
    };
    // Warm-up of both kinds (JIT, the CRD handlers, the compiled rules): the first run after a
    // CRD is created was measured at a third of the next ones.
    await creates('ruled')();
    await creates('plain')();
    const turns = await inTurns(N.createRuns, [creates('ruled'), creates('plain')]);
    const each = (f: (l: Load & { cpuUs: number }) => number): string =>
      turns[0]!.map((l, i) => (f(l) / f(turns[1]![i]!)).toFixed(2)).join(', ');
    console.log(
      `cel: HTTPRoute creates, each turn's ratio with rules/without: creates/s ${each((l) => l.rate)}; server CPU per create ${each((l) => l.cpuUs)}`,
    );
    const [withRules, without] = turns.map((runs) => ({
      ...medianLoad(runs),
      cpuUs: median(runs.map((l) => l.cpuUs)),
    })) as [Load & { cpuUs: number }, Load & { cpuUs: number }];
    const cpuLimit = 1 / (1 - TARGET.ruleShare);
    return [
      {
        ...metric(
          `creates/s of a gateway-api HTTPRoute with its ${ruled.kept} rules (vs the same CRD without rules)`,
          withRules.rate,
          without.rate,
          'ops/s',
          'higher',
        ),
        latency: { ours: withRules, baseline: without },
        target: verdict(
          `rules ≤ ${TARGET.ruleShare * 100}% (≥ ${1 - TARGET.ruleShare})`,
          withRules.rate / without.rate >= 1 - TARGET.ruleShare,
        ),
      },
      {
        ...metric(
          'server CPU per HTTPRoute create, with its rules (vs without), all threads (/proc)',
          withRules.cpuUs,
          without.cpuUs,
          'µs',
          'lower',
        ),
        target: verdict(`≤ ${cpuLimit.toFixed(2)}`, withRules.cpuUs / without.cpuUs <= cpuLimit),
      },
    ];
  } finally {
    c.agent.destroy();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const metrics = ROWS === undefined ? await evaluation() : [];
  if (existsSync(CORPUS)) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-cel-'));
    try {
      const corpus = readCorpus();
      if (ROWS !== 'create') metrics.push(await compileCorpus(corpus, dir));
      if (ROWS !== 'compile') {
        const httpRoutes = corpus.find((c) => c.source === HTTPROUTES);
        if (!httpRoutes) throw new Error(`${HTTPROUTES} is not in ${CORPUS}`);
        metrics.push(...(await httpRouteCreates(httpRoutes.crd, dir)));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    console.log(
      `${CORPUS} does not exist: no HTTPRoute creates and no corpus compile (the real-world CRDs are in ../shared/realworld)`,
    );
  }
  report('cel', 'baseline', metrics);
}

await main();
