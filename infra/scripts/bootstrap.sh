#!/usr/bin/env bash
# `make bootstrap`: creates the first organization, admin and API key of a deployed stack
# and prints them once. The stack comes from samconfig.toml (CONFIG_ENV, default "default")
# unless STACK is given; REGION falls back to AWS_REGION. The table, signing secret and
# secrets prefix are read from the stack's outputs with the SAM CLI of the project venv.
# Uses the operator's AWS credentials (the SDK's default chain: profiles, SSO, env).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

env_name=${CONFIG_ENV:-default}
stack=${STACK:-$(python3 -c '
import sys, tomllib
cfg = tomllib.load(open("samconfig.toml", "rb"))
print(cfg.get(sys.argv[1], {}).get("global", {}).get("parameters", {}).get("stack_name", ""))
' "$env_name")}
region=${REGION:-${AWS_REGION:-${AWS_DEFAULT_REGION:-}}}
[[ -n $stack ]] || { echo "bootstrap: no stack name (set STACK, or stack_name in samconfig.toml [$env_name.global.parameters])" >&2; exit 2; }
[[ -n $region ]] || { echo "bootstrap: no region (set REGION or AWS_REGION)" >&2; exit 2; }

[[ -x .cache/venv/bin/sam ]] || bash infra/scripts/venv.sh
outputs=$(SAM_CLI_TELEMETRY=0 .cache/venv/bin/sam list stack-outputs --stack-name "$stack" --region "$region" --output json)
output() { python3 -c '
import json, sys
for o in json.loads(sys.stdin.read()):
    if o["OutputKey"] == sys.argv[1]:
        print(o["OutputValue"]); break
else:
    sys.exit("bootstrap: stack output %s not found" % sys.argv[1])
' "$1" <<<"$outputs"; }

exec go run ./infra/bootstrap -region "$region" -table "$(output TableName)" \
	-jwt-secret-arn "$(output JwtSigningSecretArn)" -api-key-pepper-arn "$(output ApiKeyPepperSecretArn)" \
	-secrets-prefix "$(output SecretsPrefix)"
