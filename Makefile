# Inquest: `make run` starts everything (embedded NATS); `make test` runs the whole suite.
SHELL := /bin/bash
.DEFAULT_GOAL := help
STAMP := node_modules/.installed

.PHONY: help deps nats-server chromium kubectl rsvg build run cluster chaos test check typecheck lint bench bench-check bench-fleet bench-curiosity calibrate evaluate openapi lock clean

help:
	@echo "make run        start every service with an embedded nats-server (Ctrl-C stops)"
	@echo "make cluster    the same on 3 clustered nats-servers with 2 replicas of every service"
	@echo "make chaos      faults under load on that cluster; writes bench/chaos.md (about 8 minutes)"
	@echo "make test       build and run the whole test suite"
	@echo "make check      typecheck (tests included) + house-rule lint + tests"
	@echo "make bench      benchmarks against the Fastify and BullMQ peers; results in bench/results.md"
	@echo "make bench-check fail when a ratio of the last bench is >20 % below bench/baseline.json"
	@echo "make bench-fleet  live investigations over 10,000 simulated agents; results in bench/fleet.md (minutes)"
	@echo "make bench-curiosity  curiosity lateness with 100,000 active items; results in bench/curiosity.md (minutes)"
	@echo "make evaluate   the engine on the generated corpus; prints confusion tables, writes docs/evaluation.md"
	@echo "make calibrate  recompute the detection calibration table from the corpus's calibrate split"
	@echo "make openapi    regenerate openapi.json"
	@echo "make lock       update package-lock.json after a dependency change"

$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $(STAMP)

nats-server:
	@if [ -n "$$NATS_URL" ] || command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ]; then :; \
	elif [ "$$(id -u)" = "0" ]; then echo "installing nats-server (apt)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server; \
	else echo "nats-server is missing: run 'sudo apt-get install nats-server' or set NATS_URL to a running server" >&2; exit 1; fi

# The browser tests drive Debian's chromium (test/browser/); playwright-core never downloads a browser.
chromium:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = "0" ]; then echo "installing chromium (apt)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else echo "chromium is missing (the browser tests need /usr/bin/chromium): run 'sudo apt-get install chromium'" >&2; fi

# The deploy tests build the kustomize overlays with kubectl (offline; Debian's package). Missing: those tests skip.
kubectl:
	@if command -v kubectl >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ]; then echo "installing kubectl (apt)"; (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubectl) || echo "kubectl could not be installed: the overlay tests will skip" >&2; \
	else echo "kubectl is missing (the overlay tests skip): run 'sudo apt-get install kubectl'" >&2; fi

deps: $(STAMP) nats-server chromium kubectl

build: $(STAMP)
	@rm -rf dist
	npx tsc -p tsconfig.json
	npx tsc -p console/tsconfig.json
	cp -R console/static/. dist/console/

run: deps build
	PATH="$$PATH:/usr/sbin" node dist/cli/main.js up

cluster: deps build
	PATH="$$PATH:/usr/sbin" node dist/cli/main.js up --cluster

# Faults under load on a 3-node cluster (docs/operations.md#chaos); CHAOS_ARGS="--duration 600 --seed 7" to vary.
chaos: deps build
	PATH="$$PATH:/usr/sbin" node dist/scripts/chaos/main.js $(CHAOS_ARGS)

test: deps build
	PATH="$$PATH:/usr/sbin" node dist/scripts/tests/run.js

typecheck: $(STAMP)
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p console/tsconfig.json --noEmit

lint:
	node scripts/lint.mjs

check: typecheck lint test

# The bench's charts are SVG converted to PNG by rsvg-convert (Debian's librsvg2-bin).
rsvg:
	@if command -v rsvg-convert >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = "0" ]; then echo "installing librsvg2-bin (apt)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq librsvg2-bin; \
	else echo "rsvg-convert is missing (sudo apt-get install librsvg2-bin): charts stay SVG" >&2; fi

bench: deps rsvg build
	PATH="$$PATH:/usr/sbin" node dist/bench/run.js

bench-fleet: deps build
	PATH="$$PATH:/usr/sbin" node dist/bench/fleet-scale.js

bench-curiosity: deps build
	PATH="$$PATH:/usr/sbin" node dist/bench/curiosity-scale.js

bench-check: $(STAMP)
	@test -f dist/bench/check.js || npx tsc -p tsconfig.json
	node dist/bench/check.js

calibrate: deps build
	node dist/scripts/calibrate.js

evaluate: deps build
	node dist/scripts/evaluate.js --check

openapi: deps build
	PATH="$$PATH:/usr/sbin" node dist/scripts/openapi.js

# After changing dependencies: update the lock so that `npm ci` accepts it (see scripts/prune-lock.mjs).
lock:
	npm install --no-audit --no-fund
	node scripts/prune-lock.mjs
	@touch $(STAMP)

clean:
	rm -rf dist data
