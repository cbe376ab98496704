#!/usr/bin/env bash
# Every test tier, as `make test` and CI run it, in this order ("‖": beside the steps that
# follow it, in the background):
#   venv.sh ‖ dynamodb-local.sh ‖ client venv
#                                Python tools (moto, SAM CLI, cfn-lint, schemathesis) into
#                                .cache/venv; DynamoDB Local from Maven Central; the original's
#                                client into .cache/client-venv (all wait on the network while
#                                the next two steps compute)
#   make lint                    gofmt, go vet, staticcheck
#   go test build                the test binaries, compiled in parallel
#   emulators.sh start           DynamoDB Local and moto on free 127.0.0.1 ports (stopped on any exit)
#   go test ./...                unit, handler, conformance, event and end-to-end tests, two
#                                packages at a time unless TEST_PARALLEL says otherwise; after
#                                go test's own lines, the packages and ten tests that took longest
#   contractcover                every served operation's success held to the client contract
#   idcheck                      every id the suite's checked successes answer is a UUID4
#   schemathesis.sh ‖            OpenAPI-driven fuzzing of the local host, canary sweep of its log
#   client-tier.sh ‖             the original's Python client (galileo 2.7.0) driven as a user would
#   bench, fuzz                  every event once through BenchmarkEvents; each go fuzz target
#   template-check.sh            cfn-lint, sam validate, sam build, bootstrap sizes, stack size
# Prints one timing line per step, with how busy the machine's cores were over it, and stops
# at the first step that fails, exiting non-zero (a background step's failure is seen when it
# is joined). (Stopping is also what makes Ctrl-C work: go test handles SIGINT and exits 1, so
# bash sees no signal, only a failed step.) Extra arguments go to go test, e.g.
# `test.sh -run Conformance`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts=infra/scripts

failed=()
now() { date +%s%N; }
# cpu_ticks: the machine's busy and total CPU ticks so far (/proc/stat's first line).
cpu_ticks() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t; exit }' /proc/stat; }

# report NAME START_NS START_TICKS RC [END_NS END_TICKS]: "test.sh: NAME ok 1.2 s (machine 87% busy)" (or FAILED),
# recording a failure. The share of the two cores in use over the step (every process, the
# emulators and any step running beside it included) tells a step waiting on something from
# one computing.
report() {
	local name=$1 t=$2 ticks=$3 rc=$4 end=${5:-$(now)} endticks=${6:-$(cpu_ticks)} took busy
	took=$(awk -v a="$t" -v b="$end" 'BEGIN { printf "%.1f s", (b - a) / 1e9 }')
	busy=$(echo "$endticks" | awk -v a="$ticks" '{ split(a, s, " "); d = $2 - s[2]; printf "%d%%", (d > 0 ? 100 * ($1 - s[1]) / d : 0) }')
	if ((rc == 0)); then
		printf 'test.sh: %-18s ok      %-9s (machine %s busy)\n' "$name" "$took" "$busy"
	else
		printf 'test.sh: %-18s FAILED  %-9s (exit %d; machine %s busy)\n' "$name" "$took" "$rc" "$busy"
		failed+=("$name")
	fi
}

# step NAME COMMAND...: runs it in the foreground, reports it, returns its status.
step() {
	local name=$1 t ticks rc=0
	shift
	t=$(now) ticks=$(cpu_ticks)
	"$@" || rc=$?
	report "$name" "$t" "$ticks" "$rc"
	return "$rc"
}

# Steps that wait on the network or leave a core idle run beside others: spawn NAME COMMAND...
# starts one in the background, its output kept in a log; join NAME waits for it, prints its
# output, then its timing line (its own wall time, from spawn to its end, not to the join).
declare -A bg_pid bg_t bg_ticks
# This run's own directory: emulators (stopped on every way out, Ctrl-C and kill included),
# the background steps' logs, go test's JSON; kept when the run failed.
export EMULATORS_RUN_DIR="$root/.cache/run/test.$$"
logs="$EMULATORS_RUN_DIR/steps"
mkdir -p "$logs"
cleanup() {
	local rc=$? pid
	for pid in "${bg_pid[@]}"; do
		pkill -TERM -P "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
	done
	bash "$scripts/emulators.sh" stop
	if ((rc == 0)); then
		rm -rf "$EMULATORS_RUN_DIR"
	else
		echo "test.sh: logs of this run in $EMULATORS_RUN_DIR" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
spawn() {
	local name=$1
	shift
	bg_t[$name]=$(now) bg_ticks[$name]=$(cpu_ticks)
	(
		rc=0
		"$@" >"$logs/$name.log" 2>&1 || rc=$?
		echo "$rc $(now) $(cpu_ticks)" >"$logs/$name.rc"
	) &
	bg_pid[$name]=$!
}
join() {
	local name=$1 rc end busy total
	wait "${bg_pid[$name]}" || true
	read -r rc end busy total <"$logs/$name.rc" || rc=1
	cat "$logs/$name.log"
	report "$name" "${bg_t[$name]}" "${bg_ticks[$name]}" "$rc" "${end:-}" "${busy:+$busy $total}"
	return "$rc"
}

finish() {
	if ((${#failed[@]})); then
		echo "test.sh: FAILED: ${failed[*]}" >&2
		exit 1
	fi
	echo "test.sh: all steps passed"
}

# Every Go build of the run (vet, staticcheck's package loading, the tests, the fuzz targets, the
# local hosts, the amd64 bootstraps of the size check) with the bootstraps' settings: no cgo
# and trimmed paths. The amd64 size check then links the packages the tests compiled instead
# of compiling the module and the standard library once more (a fresh machine compiles each
# configuration from scratch), and no C compiler runs.
export CGO_ENABLED=0
export GOFLAGS="-trimpath${GOFLAGS:+ $GOFLAGS}"

# The Python tools and DynamoDB Local come from the network (cold) while lint and the test
# build compute; the emulators need both, the go test step the emulators.
spawn venv bash "$scripts/venv.sh"
spawn dynamodb-local bash "$scripts/dynamodb-local.sh"
# The client tier's venv (the original's Python client, pinned apart from the tools).
spawn client-venv env VENV="$root/.cache/client-venv" REQUIREMENTS="$root/infra/clienttier/requirements.txt" \
	bash "$scripts/venv.sh"
step lint make --no-print-directory lint || finish
# Packages run $parallel at a time, each test binary against a moto server of its own
# (moto-slot.sh: moto restores every table from a snapshot when a transaction is cancelled,
# undoing writes another package made meanwhile); DynamoDB Local is shared. The test binaries
# are compiled first, in parallel. -vet=off: the lint step ran go vet's every analyzer over the
# same packages; go test's own vet (a subset of them) would only do that work again.
# (testreport too: it renders the go test step below.)
report="$EMULATORS_RUN_DIR/testreport"
build_tests() {
	go build -o "$report" ./infra/scripts/testreport &&
		go test -count=1 -vet=off "$@" -run '^$' ./... | { grep -v -e '^ok ' -e 'no test files' || true; }
}
step "go test build" build_tests "$@" || finish
join venv || finish
join dynamodb-local || finish
join client-venv || finish

# TEST_PARALLEL=N runs N packages at a time, each with a moto of its own (moto-slot.sh).
# Two by default, one per core (docs/PERFORMANCE.md, "Suite time (issue 31)");
# TEST_PARALLEL=1 runs them one by one.
parallel=${TEST_PARALLEL:-2}
export MOTO_SLOTS=$parallel
step emulators bash "$scripts/emulators.sh" start || finish
eval "$(bash "$scripts/emulators.sh" env)"
export TEST_DYNAMODB_LOCAL_ENDPOINT TEST_MOTO_ENDPOINT TEST_MOTO_ENDPOINTS

# The SDK talks only to the emulators: dummy credentials and region, no profile files, no
# instance metadata lookups.
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test
export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true

# Every success a test checks against docs/openapi.yaml is also held to the original's client
# contract and recorded here; after the whole suite, every served operation the client
# parses must have been checked (a filtered run, with arguments, cannot prove that).
export CLIENT_CONTRACT_RECORD_DIR="$EMULATORS_RUN_DIR/client-contract"
rm -rf "$CLIENT_CONTRACT_RECORD_DIR"
# Likewise every id-named field of those successes that holds no UUID4 (shared/apitest/ids.go).
export ID_RECORD_DIR="$EMULATORS_RUN_DIR/ids"
rm -rf "$ID_RECORD_DIR"
# go_test runs go test -json into $EMULATORS_RUN_DIR/go-test.json (kept when the run fails)
# through testreport, which shows what plain go test shows (each package's closing ok/FAIL
# line, the output of what failed) and then the packages and the ten tests that took longest.
go_test() {
	local json="$EMULATORS_RUN_DIR/go-test.json" module
	module=$(awk '$1 == "module" { print $2; exit }' go.mod)
	go test -json -count=1 -vet=off -p "$parallel" -exec "$root/$scripts/moto-slot.sh" -timeout 25m "$@" ./... |
		tee "$json" | "$report" -trim "$module/"
	local rc=("${PIPESTATUS[@]}")
	if ((rc[1] || rc[2])); then
		echo "test.sh: could not render go test's output (tee exit ${rc[1]}, testreport exit ${rc[2]}); it is in $json" >&2
		return $((rc[0] ? rc[0] : 1))
	fi
	return "${rc[0]}"
}
step "go test" go_test "$@" || finish
if (($# == 0)); then
	step "client contract" go run ./infra/contractcover -dir "$CLIENT_CONTRACT_RECORD_DIR" || finish
	step "uuid4 ids" go run ./infra/idcheck -dir "$ID_RECORD_DIR" || finish
fi
unset CLIENT_CONTRACT_RECORD_DIR ID_RECORD_DIR
# The last tiers: schemathesis (a Python process driving the local host: about one core)
# runs beside the ones that compute (bench, fuzz, the template checks' builds).
# OpenAPI-driven fuzzing of the local host, then a canary sweep of its log.
spawn schemathesis bash "$scripts/schemathesis.sh"
# The original's Python client driven against a local host of its own (docs/CLIENT-COMPATIBILITY.md,
# "The client tier"): one Python process, beside the rest too.
spawn client-tier bash "$scripts/client-tier.sh"
# Every event once through BenchmarkEvents (first-run status checked), so `make bench` cannot rot.
step bench go test -count=1 -vet=off -run '^$' -bench BenchmarkEvents -benchtime 1x ./infra/invoke/ || finish
# Each go fuzz target briefly past its seed corpus (which go test ran above): FUZZTIME each,
# 10,000 inputs by default. A count, not a duration: with a duration, go test can report
# "context deadline exceeded" as a failure when the time runs out while a busy machine's
# workers are still answering. A failing input lands in the package's testdata/fuzz.
fuzz_targets() {
	local t out
	for t in validate:FuzzParseJSON validate:FuzzDecodeBody validate:FuzzPage validate:FuzzStorableNumber httpapi:FuzzDecodeBody \
		traces:FuzzReadSearch datasets:FuzzContentPage egress:FuzzEndpointCheck schedule:FuzzParse store:FuzzUnquote; do
		out=$(go test -vet=off -run '^$' -fuzz "^${t#*:}\$" -fuzztime "${FUZZTIME:-10000x}" "./shared/${t%%:*}" 2>&1) ||
			{ printf '%s\n' "$out" >&2; echo "test.sh: fuzz target $t failed" >&2; return 1; }
	done
}
step fuzz fuzz_targets || finish
step template-check bash "$scripts/template-check.sh" || finish
join schemathesis || finish
join client-tier || finish
finish
