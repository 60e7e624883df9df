// Prints vitest's JSON report as the closing lines CI understands: which kubectl versions the e2e
// tests ran against, then "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
let fail = false;

// e2e suites are named "kubectl <version>". Each version's first test checks its binary
// ("the kubectl <version> binary is there, ..."): missing, that test fails with where it looked and
// how to get the binary, and the version's other tests are skipped: the summary says so and fails.
const BINARY_TEST = /^the kubectl \S+ binary /;
const kubectl = new Map();
for (const file of report.testResults ?? []) {
  for (const t of file.assertionResults ?? []) {
    const version = /^kubectl (\d+\.\d+)$/.exec(t.ancestorTitles?.[0] ?? '')?.[1];
    if (!version) continue;
    const counts = kubectl.get(version) ?? { passed: 0, failed: 0, skipped: 0, binary: undefined };
    counts[t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped']++;
    if (BINARY_TEST.test(t.title ?? '')) counts.binary = t;
    kubectl.set(version, counts);
  }
}
for (const [version, c] of [...kubectl].sort()) {
  const counts = `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
  if (c.binary?.status === 'failed') {
    fail = true;
    console.log(`kubectl ${version}: FAILED, binary missing or wrong (${counts}):`);
    const message = String(c.binary.failureMessages?.[0] ?? '')
      .split('\n')
      .filter((l) => !/^\s+at /.test(l));
    for (const l of message) if (l.trim()) console.log(`  ${l.replace(/^AssertionError: /, '')}`);
  } else if (c.passed === 0) {
    // Filtered out (-t), most likely: the binary check fails a full run when the binary is missing.
    console.log(`kubectl ${version}: ${counts} (nothing ran against it: filtered out?)`);
  } else {
    console.log(`kubectl ${version}: ${counts}`);
  }
}

// A test file that could not run (an import that throws, a failing beforeAll) fails no single test.
const broken = (report.testResults ?? []).filter(
  (f) => f.status === 'failed' && !(f.assertionResults ?? []).some((t) => t.status === 'failed'),
);
for (const f of broken) {
  fail = true;
  console.log(`FAILED to run: ${f.name}: ${String(f.message ?? '').split('\n')[0]}`);
}

// Where the suite's time goes (its budget is 5 minutes on a 2-core machine): the 20 slowest files.
const files = (report.testResults ?? []).map((f) => ({
  s: (f.endTime - f.startTime) / 1000,
  name: f.name.replace(/^.*?\/test\//, 'test/'),
}));
if (files.length > 1) {
  console.log('slowest test files:');
  for (const f of files.sort((a, b) => b.s - a.s).slice(0, 20))
    console.log(`${f.s.toFixed(1).padStart(7)} s  ${f.name}`);
}

// The failed tests last, by file and name with their first line, so that the tail CI keeps shows them.
for (const f of report.testResults ?? []) {
  for (const t of f.assertionResults ?? []) {
    if (t.status !== 'failed') continue;
    const first = String(t.failureMessages?.[0] ?? '').split('\n')[0];
    console.log(`FAILED: ${f.name.replace(/^.*?\/test\//, 'test/')} > ${t.fullName}: ${first.slice(0, 300)}`);
  }
}

const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (fail || failed > 0 || passed === 0) process.exit(1);
