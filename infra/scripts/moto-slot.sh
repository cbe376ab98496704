#!/usr/bin/env bash
# go test -exec wrapper (test.sh): runs one package's test binary against a moto server of
# its own, so that packages can run in parallel. moto restores every table from a snapshot
# when a transaction is cancelled, which would undo what another package wrote meanwhile;
# DynamoDB Local has no such behaviour and stays shared.
#
# TEST_MOTO_ENDPOINTS lists the servers (emulators.sh start with MOTO_SLOTS=N); the binary
# takes the first one no other binary holds, by an flock on a file per server in
# $EMULATORS_RUN_DIR that the binary keeps (the descriptor survives exec) until it exits.
# go test runs at most -p binaries at once: with as many servers, none waits.
set -euo pipefail

read -ra endpoints <<<"${TEST_MOTO_ENDPOINTS:-}"
if ((${#endpoints[@]} <= 1)); then
	exec "$@"
fi
dir="${EMULATORS_RUN_DIR:?moto-slot.sh: EMULATORS_RUN_DIR is not set}"
while :; do
	for i in "${!endpoints[@]}"; do
		exec {fd}>"$dir/moto-slot.$i.lock"
		if flock -n "$fd"; then
			export TEST_MOTO_ENDPOINT="${endpoints[$i]}"
			exec "$@"
		fi
		exec {fd}>&-
	done
	sleep 0.2
done
