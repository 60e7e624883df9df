#!/usr/bin/env bash
# Makes sure Debian's Python Kubernetes client (python3-kubernetes) is importable by /usr/bin/python3,
# for test/e2e/leader-election.test.ts: installed with apt-get when we are root, as ensure-etcd.sh
# installs etcd. /usr/bin/python3, not `python3`: PATH may lead to a pyenv interpreter that cannot see
# Debian's dist-packages.
set -euo pipefail
PY=/usr/bin/python3
importable() { [ -x "$PY" ] && "$PY" -c 'import kubernetes.leaderelection.leaderelection' >/dev/null 2>&1; }
if importable; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "the Python kubernetes client is not importable by $PY: installing Debian's python3-kubernetes" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq python3-kubernetes >/dev/null
  importable && exit 0
fi
echo "test/e2e/leader-election.test.ts needs the Python kubernetes client for $PY: install it (Debian: apt-get install python3-kubernetes)" >&2
exit 1
