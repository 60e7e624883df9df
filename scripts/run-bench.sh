#!/usr/bin/env bash
# make bench [ONLY=<name>] [QUICK=1]: runs bench/<name>.ts (every benchmark when no name is given).
# Each prints its table and writes bench/results/<name>.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ] && [ -n "$1" ]; then
  names=("$1")
else
  names=()
  for f in bench/*.ts; do
    n=$(basename "$f" .ts)
    # report, client, bare and wrk are the benchmarks' own modules; soak is `make soak`, minutes long.
    case "$n" in report | client | bare | wrk | soak) ;; *) names+=("$n") ;; esac
  done
fi
for n in "${names[@]}"; do
  [ -f "bench/$n.ts" ] || { echo "no benchmark named $n (see bench/)" >&2; exit 2; }
  npx vite-node "bench/$n.ts"
done
