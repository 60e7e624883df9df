// Prints vitest's JSON report as the closing lines CI understands: which kubectl versions the e2e
// tests ran against, then "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));

// e2e suites are named "kubectl <version>"; a version whose binary is missing is skipped.
const kubectl = new Map();
for (const file of report.testResults ?? []) {
  for (const t of file.assertionResults ?? []) {
    const version = /^kubectl (\d+\.\d+)$/.exec(t.ancestorTitles?.[0] ?? '')?.[1];
    if (!version) continue;
    const counts = kubectl.get(version) ?? { passed: 0, failed: 0, skipped: 0 };
    counts[t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped']++;
    kubectl.set(version, counts);
  }
}
for (const [version, c] of [...kubectl].sort()) {
  console.log(`kubectl ${version}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped${c.passed === 0 ? ' (binary missing?)' : ''}`);
}

const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (failed > 0 || passed === 0) process.exit(1);
