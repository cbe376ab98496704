#!/usr/bin/env bash
# Starts and stops the emulators of the test suite: DynamoDB Local (in memory) and moto's
# server, each on a free 127.0.0.1 port. Pids, ports and logs live in .cache/run/, or in
# $EMULATORS_RUN_DIR when set (test.sh gives each run its own, so that two runs in one work
# tree never stop each other's emulators).
#
#   emulators.sh start   start both (stopping any this script started before), wait until they answer
#   emulators.sh env     print the export line of the endpoints the tests read
#   emulators.sh stop    stop exactly the processes recorded by start
#
# MOTO_SLOTS=N (default 1) starts N moto servers: TEST_MOTO_ENDPOINT names the first and
# TEST_MOTO_ENDPOINTS all of them, for test.sh's parallel packages (moto-slot.sh: one moto
# per running test binary, because moto restores every table from a snapshot when a
# transaction is cancelled, undoing what another package wrote meanwhile). DynamoDB Local
# has no such behaviour and is shared (every test makes tables of its own).
#
# Callers that start must stop on every exit path (test.sh does it with a trap). Needs
# venv.sh and dynamodb-local.sh to have run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
run="${EMULATORS_RUN_DIR:-$root/.cache/run}"
ddb="$root/.cache/dynamodb-local"
py="$root/.cache/venv/bin/python"

die() {
	echo "emulators.sh: $*" >&2
	exit 1
}

# free_port prints a port nobody listens on now. Another process could take it before the
# emulator binds it; the wait below then fails loudly instead of talking to a stranger.
free_port() {
	"$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# answers URL: true once anything answers HTTP there (an error status counts as an answer).
# curl when there is one: a Python start per poll is slow on a loaded machine.
answers() {
	if command -v curl >/dev/null; then
		curl -s -o /dev/null -m 2 "$1"
		return
	fi
	"$py" - "$1" <<'PY' >/dev/null 2>&1
import sys, urllib.error, urllib.request
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except urllib.error.HTTPError:
    pass
PY
}

# expected NAME prints the text the command line of that emulator must contain, so that stop
# never kills a process that merely reuses a recorded pid.
expected() {
	case $1 in
	dynamodb-local) echo "-inMemory" ;;
	moto*) echo "moto_server.py" ;;
	esac
}

alive() { # NAME: true when the recorded pid is running and is that emulator
	local pidf="$run/$1.pid" pid
	[[ -f "$pidf" ]] || return 1
	pid="$(cat "$pidf")"
	[[ -r "/proc/$pid/cmdline" ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$(expected "$1")"
}

stop_one() {
	local name=$1 pid i
	if alive "$name"; then
		pid="$(cat "$run/$name.pid")"
		kill "$pid" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			alive "$name" || break
			sleep 0.1
		done
		if alive "$name"; then
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	rm -f "$run/$name.pid" "$run/$name.port"
}

launch() { # NAME PORT COMMAND...: starts it detached from our stdio, records pid and port
	local name=$1 port=$2
	shift 2
	"$@" </dev/null >"$run/$name.log" 2>&1 &
	echo $! >"$run/$name.pid"
	echo "$port" >"$run/$name.port"
}

# wait_for NAME: until the emulator answers, it dies, or start_timeout seconds pass (a JVM
# on a busy 2-core machine can take a minute).
start_timeout=${EMULATOR_START_TIMEOUT:-180}
wait_for() {
	local name=$1 port deadline=$((SECONDS + start_timeout))
	port="$(cat "$run/$name.port")"
	while ((SECONDS < deadline)); do
		if ! alive "$name"; then
			tail -n 30 "$run/$name.log" >&2
			die "$name exited during start (log: $run/$name.log)"
		fi
		answers "http://127.0.0.1:$port/" && return 0
		sleep 0.2
	done
	tail -n 30 "$run/$name.log" >&2
	die "$name did not answer on 127.0.0.1:$port within $start_timeout s (log: $run/$name.log)"
}

start() {
	[[ -x "$py" ]] || die "no .cache/venv; run infra/scripts/venv.sh first"
	"$py" -c 'import moto.moto_server.werkzeug_app' 2>/dev/null || die "moto[server] missing from .cache/venv; run infra/scripts/venv.sh"
	[[ -f "$ddb/main-class" ]] || die "DynamoDB Local not fetched; run infra/scripts/dynamodb-local.sh first"
	mkdir -p "$run"
	stop_all

	local dport mport i
	dport="$(free_port)"
	# DynamoDB Local has no bind-address option; it listens on every interface.
	# (Tried: the serial collector and the client compiler only cut DynamoDB Local's CPU by a
	# third on a 40-second test, but the whole suite ran longer: C2 pays off over minutes.)
	launch dynamodb-local "$dport" java -Xmx512m \
		-Djava.library.path="$ddb/lib" -Dsqlite4java.library.path="$ddb/lib" \
		-cp "$ddb/lib/*" "$(cat "$ddb/main-class")" \
		-inMemory -sharedDb -disableTelemetry -port "$dport"
	# moto_server.py: moto's server without its request threads (why: in that file).
	local used=" $dport "
	for ((i = 1; i <= slots; i++)); do
		mport="$(free_port)"
		while [[ "$used" == *" $mport "* ]]; do mport="$(free_port)"; done
		used+="$mport "
		launch "$(moto_name "$i")" "$mport" "$py" "$root/infra/scripts/moto_server.py" -H 127.0.0.1 -p "$mport"
	done

	local ok=1
	wait_for dynamodb-local || ok=0
	for ((i = 1; i <= slots && ok; i++)); do
		wait_for "$(moto_name "$i")" || ok=0
	done
	if ((!ok)); then
		stop_all
		exit 1
	fi
}

slots=${MOTO_SLOTS:-1}
[[ "$slots" =~ ^[1-9]$ ]] || die "MOTO_SLOTS must be 1 to 9, not $slots"

# moto_name I: the first moto is "moto" (its files as before), the others moto2, moto3...
moto_name() { if (($1 == 1)); then echo moto; else echo "moto$1"; fi; }

# stop_all stops DynamoDB Local and every moto this run directory records.
stop_all() {
	local f
	stop_one dynamodb-local
	for f in "$run"/moto*.pid; do
		[[ -e "$f" ]] || continue
		f=${f##*/}
		stop_one "${f%.pid}"
	done
}

env_line() {
	local f eps=()
	alive dynamodb-local || die "DynamoDB Local is not running (emulators.sh start)"
	alive moto || die "moto is not running (emulators.sh start)"
	for f in "$run"/moto*.port; do
		f=${f##*/}
		f=${f%.port}
		alive "$f" && eps+=("http://127.0.0.1:$(cat "$run/$f.port")")
	done
	echo "export TEST_DYNAMODB_LOCAL_ENDPOINT=http://127.0.0.1:$(cat "$run/dynamodb-local.port")" \
		"TEST_MOTO_ENDPOINT=http://127.0.0.1:$(cat "$run/moto.port")" "TEST_MOTO_ENDPOINTS='${eps[*]}'"
}

case "${1:-}" in
start) start ;;
stop) stop_all ;;
env) env_line ;;
*) die "usage: emulators.sh start|stop|env" ;;
esac
