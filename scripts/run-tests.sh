#!/usr/bin/env bash
# Runs every test with vitest and ends with the plain closing line CI reads: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@"
rc=$?
node scripts/test-summary.mjs test-results/vitest.json || rc=1
exit $rc
