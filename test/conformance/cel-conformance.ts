// make cel-conformance: the cel-spec conformance tests of the core-language sections through our
// CEL environment, the pass rate per section, and the closing line `cel conformance: <pct>% of <n> tests`.
//
// npx vite-node test/conformance/cel-conformance.ts [-- --verbose] [--section=<name>] [--write-set-aside]
//   --verbose lists every failing test with what it got.
//   --write-set-aside rewrites cel-set-aside.ts from this run (all sections): each listed test keeps
//     its reason, tests that pass now are dropped, new failures come in as UNREVIEWED (give each its
//     reason, after checking it is not a regression: the guard refuses UNREVIEWED).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  SECTIONS,
  checkSetAside,
  describeSetAside,
  failureCauses,
  kubeRelevant,
  runConformance,
  setAsideSource,
  summaryLine,
} from './cel-spec.js';

const args = new Map(
  process.argv
    .slice(2)
    .filter((a) => a !== '--')
    .map((a) => a.replace(/^--/, '').split('=') as [string, string]),
);
const only = args.get('section');
if (only && args.has('write-set-aside')) {
  console.error('--write-set-aside needs every section: leave out --section');
  process.exit(2);
}
const started = performance.now();
const r = runConformance(only ? [only] : SECTIONS);
if (args.has('verbose'))
  for (const t of r.results) if (t.outcome === 'fail') console.log(`FAIL ${t.id}: ${t.expr}  -- ${t.detail}`);
console.log(
  `${'section'.padEnd(14)} ${'pass'.padStart(5)} ${'tests'.padStart(5)} ${'rate'.padStart(7)} ${'skipped'.padStart(8)}`,
);
for (const s of r.sections)
  console.log(
    `${s.section.padEnd(14)} ${String(s.pass).padStart(5)} ${String(s.n).padStart(5)} ${`${((100 * s.pass) / s.n).toFixed(1)}%`.padStart(7)} ${String(s.skipped).padStart(8)}`,
  );
console.log(
  `(skipped: proto-message, checkOnly and unknown-result tests, not counted; ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
console.log('\nfailures by cause (cel-set-aside.ts):');
for (const [label, n] of failureCauses(r)) console.log(`${String(n).padStart(5)}  ${label}`);
const k = kubeRelevant(r);
console.log(
  `\nwithout the set-aside failures kube-apiserver fails too, or a rule cannot meet (the first 4 causes): ${k.pct.toFixed(1)}% of ${k.n} tests`,
);
console.log(summaryLine(r));

if (args.has('write-set-aside')) {
  const path = fileURLToPath(new URL('./cel-set-aside.ts', import.meta.url));
  const text = setAsideSource(r);
  writeFileSync(path, text);
  const unreviewed = text.match(/reason: "UNREVIEWED"/g)?.length ?? 0;
  console.log(
    `\nwrote ${path}: ${r.results.filter((t) => t.outcome === 'fail').length} tests set aside${unreviewed ? `, ${unreviewed} UNREVIEWED: give each its reason` : ''}`,
  );
} else if (!only) {
  // As cel-spec.test.ts: a failure not on the list (or a malformed entry) fails; a listed test that passes is only printed.
  const c = checkSetAside(r);
  const problems = describeSetAside(c);
  if (problems.length) console.log(`\n${problems.join('\n')}`);
  if (c.unlisted.length || c.malformed.length) process.exitCode = 1;
}
