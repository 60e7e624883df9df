#!/usr/bin/env bash
# Makes sure `wrk` (the HTTP load client bench/http and bench/cel drive the server with) is available:
# PATH first, else Debian's wrk when we are root, as ensure-etcd.sh does for etcd; else one line
# saying what to do.
set -euo pipefail
if command -v wrk >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "wrk not found on PATH: installing Debian's wrk" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq wrk >/dev/null
  command -v wrk >/dev/null 2>&1 && exit 0
fi
echo "wrk is required for make bench: install it (Debian: apt-get install wrk) or put a wrk binary on PATH" >&2
exit 1
