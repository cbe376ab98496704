# evalapi: build, run, test and lint. `make help` lists the targets.
#
# This file is also the SAM build manifest: every function in template.yaml uses
# `BuildMethod: makefile` with `CodeUri: .`, so `sam build` runs `make build-<LogicalId>`
# here with ARTIFACTS_DIR set, and the target writes $(ARTIFACTS_DIR)/bootstrap.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
MAKEFLAGS += --no-print-directory

# Lambda functions: <LogicalId in template.yaml>=<main package under functions/>.
# Adding a function = one word here (gives build-<LogicalId> and a build/<dir>/bootstrap).
FUNCTIONS := \
	IdentityFunction=identity \
	IntegrationsFunction=integrations \
	DatasetsFunction=datasets \
	ScorersFunction=scorers \
	ProjectsFunction=projects \
	TracesFunction=traces \
	OtelFunction=otel \
	ExperimentsFunction=experiments \
	SignalsFunction=signals \
	SignalsWorkerFunction=signalsworker \
	DocsFunction=docs \
	StreamFunction=stream \
	EvaluatorFunction=evaluator \
	ExperimentRunnerFunction=exprunner

fn_id  = $(word 1,$(subst =, ,$(1)))
fn_dir = $(word 2,$(subst =, ,$(1)))
FUNCTION_DIRS := $(foreach f,$(FUNCTIONS),$(call fn_dir,$(f)))

# One set of flags for `make build` and `sam build`: static, no RPC shim, stripped, no paths.
LAMBDA_ENV   := CGO_ENABLED=0 GOOS=linux GOARCH=arm64
LAMBDA_FLAGS := -tags lambda.norpc -ldflags "-s -w" -trimpath
BUILD_DIR    := build

# staticcheck 2026.1.x (v0.8.x) is the release line built for Go 1.26.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := go run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# Go files of the module, without the tool caches and build outputs (which may hold Go files).
GO_FILES = $(shell find . \( -path ./.git -o -path ./.cache -o -path ./.aws-sam -o -path ./$(BUILD_DIR) -o -path ./.data -o -name node_modules \) -prune -o -name '*.go' -type f -print)

.PHONY: help build run seed invoke bootstrap test lint bench load bench-http bench-scan sizes sizes-check clean distclean template-check \
	$(foreach f,$(FUNCTIONS),build-$(call fn_id,$(f)))

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo "  build-<LogicalId> one function for sam build (ARTIFACTS_DIR=...): $(foreach f,$(FUNCTIONS),$(call fn_id,$(f)))"

build: ## every linux/arm64 bootstrap + zips under build/<function>/, with sizes
	@mkdir -p $(BUILD_DIR)
	@for d in $(FUNCTION_DIRS); do \
		echo "go build ./functions/$$d -> $(BUILD_DIR)/$$d/bootstrap"; \
		$(LAMBDA_ENV) go build $(LAMBDA_FLAGS) -o $(BUILD_DIR)/$$d/bootstrap ./functions/$$d; \
		rm -f $(BUILD_DIR)/$$d/bootstrap.zip; \
		touch -t 198001010000 $(BUILD_DIR)/$$d/bootstrap; \
		if command -v zip >/dev/null; then \
			(cd $(BUILD_DIR)/$$d && zip -q -X bootstrap.zip bootstrap); \
		else \
			(cd $(BUILD_DIR)/$$d && python3 -m zipfile -c bootstrap.zip bootstrap); \
		fi; \
	done
	@printf '%-14s %12s %12s\n' function bootstrap zip
	@for d in $(FUNCTION_DIRS); do \
		printf '%-14s %12s %12s\n' $$d $$(stat -c %s $(BUILD_DIR)/$$d/bootstrap) $$(stat -c %s $(BUILD_DIR)/$$d/bootstrap.zip); \
	done

# build-<LogicalId>: the targets `sam build` calls (see the note at the top).
define SAM_BUILD_RULE
build-$(1):
	@test -n "$$(ARTIFACTS_DIR)" || { echo "build-$(1): ARTIFACTS_DIR is not set (this target is for sam build; use make build)" >&2; exit 2; }
	$$(LAMBDA_ENV) go build $$(LAMBDA_FLAGS) -o "$$(ARTIFACTS_DIR)/bootstrap" ./functions/$(2)
endef
$(foreach f,$(FUNCTIONS),$(eval $(call SAM_BUILD_RULE,$(call fn_id,$(f)),$(call fn_dir,$(f)))))

run: ## the whole API on 127.0.0.1:3000 (embedded store; DEMO=1 loads a demo day of traces first)
	go run ./infra/local

seed: ## load a demo project with a day of synthetic traces into the local store (stop make run first)
	go run ./infra/seed

invoke: ## one sample event through a function's handler: make invoke FN=datasets EVENT=events/...json [MEMORY=1]
	@[ -n "$(FN)" ] && [ -n "$(EVENT)" ] || { echo "usage: make invoke FN=<function> EVENT=<events/...json> [MEMORY=1]" >&2; exit 2; }
	go run ./infra/invoke -fn $(FN) -event $(EVENT)$(if $(filter 1 true yes,$(MEMORY)), -memory)

bootstrap: ## first organization, admin and API key of a deployed stack: make bootstrap [STACK=... REGION=... CONFIG_ENV=prod]
	bash infra/scripts/bootstrap.sh

test: ## every test tier (emulators, template checks); what CI runs
	bash infra/scripts/test.sh

template-check: ## cfn-lint, sam validate --lint, sam build, bootstrap size cap
	bash infra/scripts/template-check.sh

lint: ## gofmt, go vet, staticcheck
	@out="$$(gofmt -l $(GO_FILES))"; if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi
	go vet -tags bench ./...
	$(STATICCHECK) -tags bench ./...

bench: ## benchmarks into docs/bench/latest.txt (benchstat input; events, cold start, store, auth, records at 1M traces)
	@mkdir -p docs/bench
	go test -tags bench -run '^$$' -bench . -benchmem -timeout 60m ./... 2>&1 | grep -v '\[no test files\]$$' | tee docs/bench/latest.txt

load: ## mixed load on a local host it starts: make load [C=200 N=20000]
	go run ./infra/load -c $(or $(C),200) -n $(or $(N),20000)

# Side by side with baselines (infra/bench; docs/PERFORMANCE.md). Never part of make test.
bench-http: ## local host vs a bare net/http server with the same bytes: c=50, median of 3 [C= D=10s RUNS=3 PROFILE=host-cpu.out]
	go run ./infra/bench http -c $(or $(C),50) -d $(or $(D),10s) -runs $(or $(RUNS),3) $(if $(PROFILE),-cpuprofile $(PROFILE))

bench-scan: ## metrics search vs DuckDB on Parquet of the same traces (DuckDB optional) [TRACES=200000]
	@bash infra/scripts/duckdb-venv.sh || echo "bench-scan: DuckDB is not installable here; timing ours only"
	go run ./infra/bench scan -traces $(or $(TRACES),200000)

sizes: ## bootstraps for arm64 and amd64 vs a hello-world Lambda, what each dependency adds, init time [CHECK=1: fail over the cap]
	go run ./infra/bench sizes -flags '$(LAMBDA_FLAGS)' $(if $(CHECK),-check)

sizes-check: ## every bootstrap within its budget (infra/bench/size_budgets.json) on arm64 and amd64, and the cap on arm64 (template-check runs it)
	go run ./infra/bench sizes -flags '$(LAMBDA_FLAGS)' -cap-archs arm64 -check -attribution=false -init-runs 0

clean: ## remove build outputs (keeps .cache: venv, emulators)
	rm -rf $(BUILD_DIR) .aws-sam
	find . \( -path ./.git -o -path ./.cache \) -prune -o \( -name '*.test' -o -name '*.coverprofile' -o -name 'coverage.out' -o -name 'coverage.txt' -o -name 'coverage.html' -o -name 'cover.out' -o -name '*.cov' \) -type f -print -exec rm -f {} +

distclean: clean ## also remove .cache (tool venv, emulators) and .data (local store)
	rm -rf .cache .data
