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
	moto) echo "moto_server.py" ;;
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
	stop_one dynamodb-local
	stop_one moto

	local dport mport
	dport="$(free_port)"
	mport="$(free_port)"
	[[ "$dport" != "$mport" ]] || mport="$(free_port)"
	# DynamoDB Local has no bind-address option; it listens on every interface.
	launch dynamodb-local "$dport" java -Xmx512m \
		-Djava.library.path="$ddb/lib" -Dsqlite4java.library.path="$ddb/lib" \
		-cp "$ddb/lib/*" "$(cat "$ddb/main-class")" \
		-inMemory -sharedDb -disableTelemetry -port "$dport"
	# moto_server.py: moto's server without its request threads (why: in that file).
	launch moto "$mport" "$py" "$root/infra/scripts/moto_server.py" -H 127.0.0.1 -p "$mport"

	if ! (wait_for dynamodb-local && wait_for moto); then
		stop_one dynamodb-local
		stop_one moto
		exit 1
	fi
}

env_line() {
	alive dynamodb-local || die "DynamoDB Local is not running (emulators.sh start)"
	alive moto || die "moto is not running (emulators.sh start)"
	echo "export TEST_DYNAMODB_LOCAL_ENDPOINT=http://127.0.0.1:$(cat "$run/dynamodb-local.port")" \
		"TEST_MOTO_ENDPOINT=http://127.0.0.1:$(cat "$run/moto.port")"
}

case "${1:-}" in
start) start ;;
stop)
	stop_one dynamodb-local
	stop_one moto
	;;
env) env_line ;;
*) die "usage: emulators.sh start|stop|env" ;;
esac
