#!/usr/bin/env bash
# OpenAPI-driven fuzzing of the local host (issue 9, "Prove it holds"): builds ./infra/local,
# starts it on a free 127.0.0.1 port (PORT=0) with a fresh DATA_DIR and a known admin, and runs
# schemathesis over every operation of docs/openapi.yaml, positive and negative data, with a
# fixed seed and a bounded number of examples per operation, authenticated by the bootstrap
# API key (header Service-API-Key). The host is stopped on every way out. Afterwards the
# host's log (its stderr) is swept for the bootstrap API key and password in every encoding a
# leak could take (raw, base64 std/url/unpadded, URL-encoded, hex): a canary sweep.
#
# Checks: not_a_server_error, status_code_conformance, content_type_conformance,
# response_schema_conformance, negative_data_rejection, ignored_auth. Zero failures pass.
#
# Narrowed behaviour, each decided by the specification rather than by the document:
#   - negative_data_rejection expects a 4xx for data that violates the schema. The service
#     validates as FastAPI with Pydantic v2 in lax mode (the 422 contract of the spec is
#     Pydantic's): a boolean field takes 0/1/"true"/"off", a number field a numeric string.
#     infra/scripts/schemathesis_hooks.py drops exactly the accepted "Incorrect type" cases
#     whose value lax mode coerces; every other accepted negative case fails the run. (Unknown
#     body fields are ignored by the service, SPEC-DECISIONS; schemathesis 4 already treats
#     them as valid where the document does not say additionalProperties: false.)
#   - Security parameters are not generated (--generation-with-security-parameters false):
#     generated Authorization / API-key headers would replace the run's key and turn every
#     answer into a 401; ignored_auth still sends requests without and with bad credentials.
#
# Environment: ST_MAX_EXAMPLES (default 25), ST_SEED (default 20261123), ST_WORKERS (1: schemathesis 4.32 with several workers hits a CPython 3.11 ast.parse race, "AST constructor recursion depth mismatch"),
# ST_ARGS (extra arguments for st run). Reports go to .cache/run/schemathesis/.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
bash infra/scripts/venv.sh
st="$root/.cache/venv/bin/st"
py="$root/.cache/venv/bin/python"

run="$root/.cache/run/schemathesis"
rm -rf "$run"
mkdir -p "$run"
data="$(mktemp -d)"
email="schemathesis-admin@example.com"
password="st-Password-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
host_pid=""

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
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

go build -o "$run/evalapi-local" ./infra/local
PORT=0 DATA_DIR="$data" ADMIN_EMAIL="$email" ADMIN_PASSWORD="$password" \
	"$run/evalapi-local" >"$run/host.stdout" 2>"$run/host.stderr" &
host_pid=$!

# The first start prints the API key and then the address it listens on.
url="" key=""
for _ in $(seq 1 100); do
	url="$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$run/host.stdout" | head -n1 | sed 's/^listening on //')" || true
	[[ -n "$url" ]] && break
	if ! kill -0 "$host_pid" 2>/dev/null; then
		cat "$run/host.stderr" >&2
		echo "schemathesis.sh: the local host exited before listening" >&2
		exit 1
	fi
	sleep 0.1
done
if [[ -z "$url" ]]; then
	echo "schemathesis.sh: the local host did not listen within 10 s" >&2
	exit 1
fi
key="$(grep -oE 'API key[[:space:]]+[^[:space:]]+' "$run/host.stdout" | head -n1 | awk '{print $3}')"
if [[ -z "$key" ]]; then
	echo "schemathesis.sh: the local host printed no API key on its first start" >&2
	exit 1
fi

# st_run NAME ARGS...: one schemathesis run over docs/openapi.yaml with the shared settings.
st_run() {
	local name=$1
	shift
	# From the run directory: schemathesis keeps its cache in ./.schemathesis, which belongs
	# to this run (cleared above), not to the repository.
	(cd "$run" && SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$root/infra/scripts" "$st" run "$root/docs/openapi.yaml" \
		--url "$url" \
		--header "Service-API-Key: $key" \
		--checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection,ignored_auth \
		--mode all \
		--seed "${ST_SEED:-20261123}" \
		--max-examples "${ST_MAX_EXAMPLES:-25}" \
		--workers "${ST_WORKERS:-1}" \
		--generation-database none \
		--generation-with-security-parameters false \
		--suppress-health-check all \
		--request-timeout 20 \
		--report junit --report-junit-path "$run/junit-$name.xml" \
		--no-color \
		"$@" ${ST_ARGS:-})
}

# Revoking an API key is run last and on its own: the stateful phase links GET /v2/api_keys
# to DELETE /v2/api_keys/{api_key_id} and revokes the run's own key, after which every other
# operation would only see 401s.
rc=0
st_run main --exclude-path '/v2/api_keys/{api_key_id}' || rc=$?
st_run revoke --include-path '/v2/api_keys/{api_key_id}' || rc=$?
stop_host

# Canary sweep of the host's log: the bootstrap secrets must appear in no form.
CANARIES="$key"$'\n'"$password" "$py" - "$run/host.stderr" <<'EOF' || rc=1
import base64, binascii, os, sys, urllib.parse

log = open(sys.argv[1], "rb").read()
found = []
for secret in filter(None, os.environ["CANARIES"].split("\n")):
    raw = secret.encode()
    forms = {
        "raw": raw,
        "base64": base64.b64encode(raw),
        "base64url": base64.urlsafe_b64encode(raw),
        "base64 unpadded": base64.b64encode(raw).rstrip(b"="),
        "base64url unpadded": base64.urlsafe_b64encode(raw).rstrip(b"="),
        "url-encoded": urllib.parse.quote(secret, safe="").encode(),
        "hex": binascii.hexlify(raw),
        "HEX": binascii.hexlify(raw).upper(),
    }
    for name, form in forms.items():
        if form and form in log:
            found.append(f"{name} form of a bootstrap secret ({len(raw)} bytes)")
if found:
    print("schemathesis.sh: canary sweep FAILED: the host log holds " + "; ".join(found), file=sys.stderr)
    sys.exit(1)
print(f"schemathesis.sh: canary sweep: host log ({len(log)} bytes) holds neither the API key nor the password in any form")
EOF

if ((rc != 0)); then
	echo "schemathesis.sh: FAILED; host log and reports in $run" >&2
fi
exit "$rc"
