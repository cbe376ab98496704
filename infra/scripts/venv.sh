#!/usr/bin/env bash
# Creates .cache/venv and installs infra/requirements.txt into it. Idempotent: a stamp holding
# the hash of requirements.txt skips the install until the file changes. VENV and REQUIREMENTS
# name another venv and its requirements (infra/scripts/duckdb-venv.sh).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${VENV:-$root/.cache/venv}"
req="${REQUIREMENTS:-$root/infra/requirements.txt}"
stamp="$venv/.requirements.sha256"
log="$venv-install.log"

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
	exit 0
fi

mkdir -p "$(dirname "$venv")"
rm -f "$stamp"
if [[ ! -x "$venv/bin/python" ]]; then
	python3 -m venv "$venv" >"$log" 2>&1 || {
		cat "$log" >&2
		echo "venv.sh: python3 -m venv failed (is python3-venv installed?)" >&2
		exit 1
	}
fi
# --no-compile: Python compiles a module when it is first imported (and keeps it), so the
# thousands of modules the tools never import cost nothing on a fresh machine.
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-compile -r "$req" >"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "venv.sh: pip install -r $req failed; full log in $log" >&2
	exit 1
fi
echo "$want" >"$stamp"
