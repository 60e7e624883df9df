// make cel-conformance: the cel-spec conformance tests of the core-language sections through our
// CEL environment, the pass rate per section, and the closing line `cel conformance: <pct>% of <n> tests`.
//
// npx vite-node test/conformance/cel-conformance.ts [-- --verbose] [--section=<name>]
//   --verbose lists every failing test with what it got.
import { KUBE_GROUPS, SECTIONS, failureCauses, kubeRelevant, runConformance, summaryLine } from './cel-spec.js';

const args = new Map(process.argv.slice(2).filter((a) => a !== '--').map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const only = args.get('section');
const started = performance.now();
const r = runConformance(only ? [only] : SECTIONS);
if (args.has('verbose')) for (const t of r.results) if (t.outcome === 'fail') console.log(`FAIL ${t.section}/${t.name}: ${t.expr}  -- ${t.detail}`);
console.log(`${'section'.padEnd(14)} ${'pass'.padStart(5)} ${'tests'.padStart(5)} ${'rate'.padStart(7)} ${'skipped'.padStart(8)}`);
for (const s of r.sections) console.log(`${s.section.padEnd(14)} ${String(s.pass).padStart(5)} ${String(s.n).padStart(5)} ${`${((100 * s.pass) / s.n).toFixed(1)}%`.padStart(7)} ${String(s.skipped).padStart(8)}`);
console.log(`(skipped: proto-message, checkOnly and unknown-result tests, not counted; ${((performance.now() - started) / 1000).toFixed(1)} s)`);
console.log('\nfailures by cause:');
for (const [label, n] of failureCauses(r)) console.log(`${String(n).padStart(5)}  ${label}`);
const k = kubeRelevant(r);
console.log(`\nwithout the failures of the first ${KUBE_GROUPS} groups (kube-apiserver fails those tests too, or a rule cannot meet them): ${k.pct.toFixed(1)}% of ${k.n} tests`);
console.log(summaryLine(r));

