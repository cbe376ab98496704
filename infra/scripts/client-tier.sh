#!/usr/bin/env bash
# The client tier (issue 32): the original service's own Python client (galileo[otel] 2.7.0
# with galileo-core 4.5.0, pinned in infra/clienttier/requirements.txt and installed into
# .cache/client-venv, apart from the tool venv) driven as a user drives it against a local
# host that this script starts: go build ./infra/local, PORT=0, a fresh DATA_DIR and a known
# admin; the host may call loopback providers (ALLOW_PRIVATE_PROVIDER_ENDPOINTS) so that the
# driver's stub chat-completions server on 127.0.0.1 answers the experiments and judges.
# infra/clienttier/driver.py prints one line per flow; every flow is checked by reading its
# result back through the API, and fails on any WARNING or ERROR the client logs.
#
# Environment: TIER_FLOWS (comma-separated words: run only the flows whose names hold one),
# TIER_TRACEBACK=1 (print the client's tracebacks). The host's output is kept in
# .cache/run/client-tier.*/ when the tier fails.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", (b - a) / 1e9 }'; }

t0=$(now)
VENV="$root/.cache/client-venv" REQUIREMENTS="$root/infra/clienttier/requirements.txt" bash infra/scripts/venv.sh
echo "client-tier: venv $(secs "$t0")"

# A directory of this run's own: tiers of several worktrees or terminals may run at once.
mkdir -p "$root/.cache/run"
run="$(mktemp -d "$root/.cache/run/client-tier.XXXXXX")"
data="$(mktemp -d)"
email="client-tier-admin@example.com"
password="ct-Password-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
host_pid=""
ok=0

stop_host() {
	if [[ -n "$host_pid" ]] && kill -0 "$host_pid" 2>/dev/null; then
		kill -TERM "$host_pid" 2>/dev/null || true
		wait "$host_pid" 2>/dev/null || true
	fi
	host_pid=""
}
cleanup() {
	stop_host
	rm -rf "$data"
	if ((ok)); then
		rm -rf "$run"
	else
		echo "client-tier: the host's output is in $run" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t1=$(now)
go build -o "$run/evalapi-local" ./infra/local
PORT=0 DATA_DIR="$data" ADMIN_EMAIL="$email" ADMIN_PASSWORD="$password" ALLOW_PRIVATE_PROVIDER_ENDPOINTS=true \
	"$run/evalapi-local" >"$run/host.stdout" 2>"$run/host.stderr" &
host_pid=$!

# The first start prints the API key and then the address it listens on.
url=""
for _ in $(seq 1 300); do
	url="$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$run/host.stdout" | head -n1 | sed 's/^listening on //')" || true
	[[ -n "$url" ]] && break
	if ! kill -0 "$host_pid" 2>/dev/null; then
		cat "$run/host.stderr" >&2
		echo "client-tier: the local host exited before listening" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ -z "$url" ]]; then
	echo "client-tier: the local host did not listen within 30 s" >&2
	exit 1
fi
key="$(grep -oE 'API key[[:space:]]+[^[:space:]]+' "$run/host.stdout" | head -n1 | awk '{print $3}')"
if [[ -z "$key" ]]; then
	echo "client-tier: the local host printed no API key on its first start" >&2
	exit 1
fi
echo "client-tier: host $(secs "$t1") ($url)"

t2=$(now)
rc=0
TIER_URL="$url" TIER_API_KEY="$key" TIER_EMAIL="$email" TIER_PASSWORD="$password" \
	PYTHONPATH="$root/infra/clienttier" "$root/.cache/client-venv/bin/python" infra/clienttier/driver.py || rc=$?
echo "client-tier: driver $(secs "$t2"), total $(secs "$t0")"
if ((rc == 0)); then
	ok=1
fi
exit "$rc"
