#!/usr/bin/env bash
# Makes sure an etcd binary is available for the tests: PATH first, else Debian's etcd-server when
# we are root (as envtest-style tooling fetches its binaries), else one line saying what to do.
set -euo pipefail
if command -v etcd >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "etcd not found on PATH: installing Debian's etcd-server" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq etcd-server >/dev/null
  # Debian enables and starts a system etcd on :2379; the tests start their own on free ports.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now etcd >/dev/null 2>&1 || true; fi
  command -v etcd >/dev/null 2>&1 && exit 0
fi
echo "etcd is required for the storage tests: install it (Debian: apt-get install etcd-server) or put an etcd binary on PATH" >&2
exit 1
