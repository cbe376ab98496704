#!/usr/bin/env bash
# Creates .cache/bench-venv with infra/bench/requirements.txt (DuckDB) for `make bench-scan`,
# through venv.sh. Kept apart from .cache/venv (the test tools) so that make test never
# installs or needs DuckDB. Exits 1 with a message when DuckDB cannot be installed; make
# bench-scan then times ours only.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if ! VENV="$root/.cache/bench-venv" REQUIREMENTS="$root/infra/bench/requirements.txt" bash "$root/infra/scripts/venv.sh"; then
	echo "duckdb-venv.sh: DuckDB is not installable here (see the message above)" >&2
	exit 1
fi
