# The two commands: `make run` and `make test`. Everything else is a step they take.
SHELL := /bin/bash
NODE_MODULES := node_modules/.package-lock.json
SOURCES := $(shell find apimachinery cel webhook server crd storage admission -name '*.ts' 2>/dev/null) tsconfig.json package.json scripts/import-meta-url.js
BUILD_STAMP := dist/.build-stamp
DATA_DIR ?= .data
PORT ?= 6443

.PHONY: run test build bench soak install etcd wrk python-kubernetes typecheck lint format cel-conformance clean

install: $(NODE_MODULES)

# `npm install`, not `npm ci`: the registry we install from lacks some of rollup's per-platform
# optional packages, so the lock cannot list them and `npm ci` refuses it as out of sync.
# better-sqlite3 compiles from source when no prebuilt binary can be fetched (about 90 s).
$(NODE_MODULES): package.json package-lock.json
	npm install --no-audit --no-fund
	@touch $@

build: $(BUILD_STAMP)

# The library (dist/, tsc's output with types) and the binary's bundle (dist/bin/: one CommonJS
# file of our code and better-sqlite3's JavaScript, other packages left external, so a start loads
# one file, not two hundred; its V8 code cache is written by the first start): package.json's
# build. It depends on node_modules, whose better-sqlite3 it carries.
$(BUILD_STAMP): $(NODE_MODULES) $(SOURCES)
	npm run --silent build
	@touch $@

typecheck: $(NODE_MODULES)
	npx tsc -p tsconfig.test.json

# Biome's formatter and linter (biome.jsonc): `make lint` fails on a misformatted file or a
# warning; `make format` rewrites the files.
lint: $(NODE_MODULES)
	npx biome ci --error-on-warnings .

format: $(NODE_MODULES)
	npx biome check --write .

run: build
	node bin/mini-apiserver --data-dir $(DATA_DIR) --secure-port $(PORT)

etcd:
	@scripts/ensure-etcd.sh

# wrk, the C load client bench/http and bench/cel drive the server with, installed as etcd is.
wrk:
	@scripts/ensure-wrk.sh

# Debian's python3-kubernetes for the leader election e2e test, installed as etcd is. A failure here
# does not stop the other tests (the `-`): that test then fails, saying what is missing.
python-kubernetes:
	-@scripts/ensure-python-kubernetes.sh

# Build, lint and type-check at once (tsc twice and biome: one after another they left a core idle;
# node_modules, their common prerequisite, is made once first); etcd and python-kubernetes before
# them, one after the other, since both may run apt-get, which takes a lock.
test:
	@$(MAKE) --no-print-directory etcd python-kubernetes
	@$(MAKE) --no-print-directory -j3 --output-sync=target build lint typecheck
	scripts/run-tests.sh

# The cel-spec conformance tests through cel/: the passes per section, then the raw figure and the
# figure over the tests kube-apiserver's CEL passes. `make test` runs them too (test/conformance/cel-eval.test.ts).
cel-conformance: $(NODE_MODULES)
	npx vite-node test/conformance/cel-conformance.ts

# make bench [ONLY=<name>] [QUICK=1]
bench: build etcd wrk
	scripts/run-bench.sh $(ONLY)

# make soak [SOAK_SECONDS=120]: hostile load on the built server (1,000 watchers, 300 never reading,
# 200 mutators, 300 slowloris, /readyz every 100 ms); prints RSS, /readyz latency, throughput and
# status codes, and fails when a bound at the top of bench/soak.ts breaks. Not part of `make test`.
soak: build
	npx vite-node bench/soak.ts

clean:
	rm -rf dist
