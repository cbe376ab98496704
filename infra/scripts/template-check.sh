#!/usr/bin/env bash
# Template checks (test tier 6), run by infra/scripts/test.sh and `make template-check`:
#   1. cfn-lint template.yaml                     - no finding of any level
#   2. sam validate --lint                        - no finding
#   3a. every function, built for arm64 and amd64, within its size budget on both
#      (infra/bench/size_budgets.json) and the cap on arm64, the architecture the template
#      deploys (amd64 is held to the budgets, all of them under the cap)
#   3. sam build (BuildMethod makefile, in source, functions in parallel) into .aws-sam/build
#   4. every built bootstrap is a linux/arm64 ELF of at most MAX_BOOTSTRAP_BYTES (10,000,000)
#   5. the transformed stack holds at most 500 resources and the HTTP API at most 300 routes
# All checks run; the script exits non-zero if any of them found something.
#
# Tools come from the project venv (.cache/venv, made by infra/scripts/venv.sh from
# infra/requirements.txt). Overrides: TOOLS_BIN=<dir holding cfn-lint and sam>, or
# CFN_LINT=<path> and SAM=<path> one by one.
#
# Offline by construction: dummy AWS credentials and region, no profile files, no instance
# metadata, SAM telemetry off, SAM's version check marked as done, and an unreachable HTTP(S)
# proxy for the SAM and cfn-lint processes. The Go modules sam build needs are fetched
# beforehand (from the Go module proxy, like any go build), then sam build runs with GOPROXY=off.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD

tools_bin=${TOOLS_BIN:-$root/.cache/venv/bin}
cfn_lint=${CFN_LINT:-$tools_bin/cfn-lint}
sam=${SAM:-$tools_bin/sam}
max_bytes=${MAX_BOOTSTRAP_BYTES:-10000000}
template=template.yaml
build_dir=.aws-sam/build

if [[ ! -x $cfn_lint || ! -x $sam ]] && [[ -z ${TOOLS_BIN:-}${CFN_LINT:-}${SAM:-} ]] && [[ -f infra/scripts/venv.sh ]]; then
	echo "template-check: creating the tool venv (infra/scripts/venv.sh)"
	bash infra/scripts/venv.sh
fi
for tool in "$cfn_lint" "$sam"; do
	if [[ ! -x $tool ]]; then
		echo "template-check: $tool not found; run infra/scripts/venv.sh, or set TOOLS_BIN (or CFN_LINT and SAM)" >&2
		exit 2
	fi
done

# --- isolation from any real AWS account and from the network -------------------------------
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN
export AWS_ACCESS_KEY_ID=template-check AWS_SECRET_ACCESS_KEY=template-check
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true
export SAM_CLI_TELEMETRY=0
# SAM keeps its settings (telemetry, last PyPI version check) in this folder; marking the version
# check as just done stops SAM from calling PyPI after each command.
export __SAM_CLI_APP_DIR=$root/.cache/sam-cli
mkdir -p "$__SAM_CLI_APP_DIR"
printf '{"telemetryEnabled": false, "lastVersionCheck": %s}\n' "$(date +%s)" >"$__SAM_CLI_APP_DIR/metadata.json"
offline=(env HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9
	https_proxy=http://127.0.0.1:9 NO_PROXY= no_proxy= GOPROXY=off GOFLAGS="${GOFLAGS:-} -mod=readonly")

failures=()
now() { date +%s%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", (b - a) / 1e9 }'; }
step() { printf '\n== %s\n' "$*"; }

# --- 1. cfn-lint ----------------------------------------------------------------------------
step "cfn-lint $template ($("$cfn_lint" --version 2>&1))"
t=$(now)
if "${offline[@]}" "$cfn_lint" "$template"; then
	echo "cfn-lint: no findings ($(took "$t"))"
else
	failures+=("cfn-lint reported findings")
fi

# --- 2. sam validate --lint -----------------------------------------------------------------
step "sam validate --lint ($("$sam" --version 2>&1))"
t=$(now)
if "${offline[@]}" "$sam" validate --lint --region us-east-1 --template-file "$template"; then
	echo "sam validate --lint: no findings ($(took "$t"))"
else
	failures+=("sam validate --lint reported findings")
fi

# --- 3a. every function's size budget, on arm64 and amd64 -----------------------------------
# infra/bench/size_budgets.json states each function's budget per architecture (a ratchet:
# growing a function means raising its budget, in review). The cap is held on arm64 only, the
# architecture the template deploys (on amd64 the budgets, none above
# the cap, hold every function under it).
# The Makefile's LAMBDA_FLAGS; `make sizes-check` runs the same check. It runs before sam build:
# its one go build per architecture compiles each package once, where sam build's parallel
# builds, one go build per function, would each compile the same packages at once on a
# fresh machine; sam build then finds them compiled and links.
step "bootstraps within their budgets (arm64, amd64) and the cap (arm64)"
if ! go run ./infra/bench sizes -flags '-tags lambda.norpc -ldflags "-s -w" -trimpath' -cap "$max_bytes" \
	-archs arm64,amd64 -cap-archs arm64 -check -attribution=false -init-runs 0; then
	failures+=("a bootstrap is over its size budget (infra/bench/size_budgets.json) or over $max_bytes bytes on arm64")
fi

# --- 3. sam build ---------------------------------------------------------------------------
# The functions of the template: the resources of type AWS::Serverless::Function (the template
# keeps the two-space layout; infra/template_test.go parses it properly and checks the same set).
mapfile -t functions < <(awk '
	/^[^ #]/ { inres = ($0 ~ /^Resources:/) }
	inres && /^  [A-Za-z0-9]+:[[:space:]]*$/ { id = $1; sub(/:$/, "", id) }
	inres && /^    Type:[[:space:]]*AWS::Serverless::Function[[:space:]]*$/ { print id }
' "$template")
step "sam build: ${#functions[@]} functions (${functions[*]})"
if ((${#functions[@]} == 0)); then
	failures+=("no AWS::Serverless::Function found in $template")
fi
# Fetch (online) the modules the functions import, so that sam build can run offline.
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go list -e -tags lambda.norpc -deps ./functions/... >/dev/null ||
	echo "template-check: could not fetch the functions' modules; sam build will say why" >&2
rm -rf "$build_dir"
t=$(now)
built=false
if "${offline[@]}" "$sam" build --template-file "$template" --build-dir "$build_dir" \
	--build-in-source --no-cached --parallel; then
	built=true
	echo "sam build: done in $(took "$t")"
else
	failures+=("sam build failed (after $(took "$t"))")
fi

# --- 4. bootstrap size cap ------------------------------------------------------------------
if $built; then
	step "bootstrap binaries (cap $max_bytes bytes)"
	printf '%-24s %12s %8s %12s  %s\n' function bytes MB zip-bytes verdict
	for fn in "${functions[@]}"; do
		bin=$build_dir/$fn/bootstrap
		if [[ ! -f $bin ]]; then
			printf '%-24s %12s %8s %12s  %s\n' "$fn" - - - "MISSING"
			failures+=("$fn: no $bin")
			continue
		fi
		size=$(stat -c %s "$bin")
		zipsize=-
		if command -v zip >/dev/null; then
			zipsize=$(cd "$(dirname "$bin")" && zip -q -X - bootstrap | wc -c)
		fi
		# ELF magic, then e_machine (bytes 18-19, little endian): 0xb7 = AArch64.
		magic=$(od -An -tx1 -N4 "$bin" | tr -d ' \n')
		machine=$(od -An -tx1 -j18 -N2 "$bin" | tr -d ' \n')
		verdict=ok
		if [[ $magic != 7f454c46 || $machine != b700 ]]; then
			verdict="NOT a linux/arm64 ELF (magic $magic, machine $machine)"
			failures+=("$fn: bootstrap is not a linux/arm64 ELF")
		elif ((size > max_bytes)); then
			verdict="TOO BIG (> $max_bytes)"
			failures+=("$fn: bootstrap is $size bytes, more than $max_bytes")
		fi
		printf '%-24s %12d %8s %12s  %s\n' "$fn" "$size" "$(awk -v s="$size" 'BEGIN { printf "%.2f", s / 1e6 }')" "$zipsize" "$verdict"
	done
	for dir in "$build_dir"/*/; do
		fn=$(basename "$dir")
		if [[ -f $dir/bootstrap && " ${functions[*]} " != *" $fn "* ]]; then
			failures+=("$build_dir/$fn/bootstrap belongs to no function of $template")
		fi
	done
fi

# --- 5. stack size --------------------------------------------------------------------------
# CloudFormation's limit of resources per stack and HTTP API's default quota of routes, on the
# template as SAM transforms it (infra/template_routes_test.go estimates the same figures).
step "stack size after the SAM transform"
python=$(dirname "$sam")/python
if ! "${offline[@]}" "$python" infra/scripts/stack_size.py "$template" 500 300; then
	failures+=("the transformed stack passes CloudFormation's resource limit or HTTP API's route quota")
fi

echo
if ((${#failures[@]})); then
	echo "template-check: FAILED"
	printf '  - %s\n' "${failures[@]}"
	exit 1
fi
echo "template-check: OK (cfn-lint, sam validate --lint, sam build, ${#functions[@]} bootstraps <= $max_bytes bytes, stack size)"
