// make cel-conformance: cel-spec's conformance tests through cel/ (cel-eval.ts), the passes per
// section, then the raw figure and the figure over the tests kube-apiserver's CEL passes (all but
// the ones set aside by name in cel-eval-set-aside.ts, which kube's cel-go fails too). Exits 1
// on a failure not set aside.
//
// npx vite-node test/conformance/cel-conformance.ts [-- --verbose] [--section=<name>]
//   --verbose lists every failing test with what it got.
import { EVAL_SET_ASIDE } from './cel-eval-set-aside.js';
import { EVAL_SECTIONS, runEvalConformance } from './cel-eval.js';

const args = new Set(process.argv.slice(2).filter((a) => a !== '--'));
const only = [...args].find((a) => a.startsWith('--section='))?.slice('--section='.length);
const r = runEvalConformance(only ? [only] : EVAL_SECTIONS);
const aside = new Set(EVAL_SET_ASIDE.map((e) => e.name));
const pct = (pass: number, n: number): string => `${((100 * pass) / n).toFixed(1)}%`;

console.log(
  `${'section'.padEnd(14)} ${'pass'.padStart(5)} ${'tests'.padStart(5)} ${'rate'.padStart(7)} ${'skipped'.padStart(8)}`,
);
for (const s of r.sections)
  console.log(
    `${s.section.padEnd(14)} ${String(s.pass).padStart(5)} ${String(s.n).padStart(5)} ${pct(s.pass, s.n).padStart(7)} ${String(s.skipped).padStart(8)}`,
  );
const failing = r.results.filter((t) => t.outcome === 'fail');
const setAside = failing.filter((t) => aside.has(t.id));
const unlisted = failing.filter((t) => !aside.has(t.id));
if (args.has('--verbose'))
  for (const t of failing) console.log(`FAIL ${t.id}: ${t.expr.replace(/\s*\n\s*/g, ' ')}  -- ${t.detail}`);
console.log('(skipped: checkOnly tests and tests over protobuf messages, not counted)');
console.log(`\ncel conformance: ${pct(r.pass, r.n)} of ${r.n} tests (${r.pass} pass)`);
const kube = r.n - setAside.length;
console.log(
  `of the ${kube} tests kube-apiserver's CEL passes (${setAside.length} set aside, kube's cel-go fails them too): ${pct(r.pass, kube)}`,
);
if (unlisted.length) {
  console.log(`\nfailing, not set aside (cel-eval-set-aside.ts): ${unlisted.length}`);
  for (const t of unlisted) console.log(`  ${t.id}: ${t.expr.replace(/\s*\n\s*/g, ' ')}  -- ${t.detail}`);
  process.exitCode = 1;
}
