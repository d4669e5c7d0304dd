#!/usr/bin/env bash
# Schemathesis against a live `stratus serve` (open mode, SQLite, a throwaway data directory), from
# the server's own OpenAPI description (GET /openapi.json). Part of `make test`.
#
#   Scripts/test-schemathesis.sh            SCHEMATHESIS_EXAMPLES (default 20) examples per operation
#
# Fails on any 5xx, any refusal of a CloudKit route that is not a CloudKit error body, any
# refused request that changed stored data (Scripts/schemathesis/stratus_hooks.py), and on
# responses that do not match the description. Schemathesis is installed from PyPI into
# .build/schemathesis-venv on first use (pinned below).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

version=4.32.5
venv=.build/schemathesis-venv
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$version"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi

stratus="${STRATUS_BIN:-$(swift build --show-bin-path)/stratus}"
[ -x "$stratus" ] || swift build --product stratus
data=$(mktemp -d /tmp/stratus-schemathesis.XXXXXX)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT

container=iCloud.com.example.Schemathesis
"$stratus" container create "$container" --data-dir "$data" >/dev/null
"$stratus" serve --open --port 0 --data-dir "$data" --log-level warning --requests-per-second 0 \
  >"$data/stdout" 2>"$data/stderr" &
server_pid=$!
url=""
for _ in $(seq 1 600); do
  url=$(grep -oE "http://127\.0\.0\.1:[0-9]+" "$data/stdout" | head -1 || true)
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$data/stderr" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "stratus serve printed no URL" >&2; exit 1; }

database=$(find "$data" -name "*.sqlite" | head -1)
export STRATUS_SCHEMATHESIS_DB="$database" STRATUS_SCHEMATHESIS_CONTAINER="$container"
export PYTHONPATH="$PWD/Scripts/schemathesis"
export SCHEMATHESIS_HOOKS=stratus_hooks
status=0
"$venv/bin/schemathesis" --no-color run "$url/openapi.json" \
  --url "$url" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-20}" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,cloudkit_error_body,refused_request_changes_nothing \
  --phases examples,coverage,fuzzing \
  --seed "${SCHEMATHESIS_SEED:-1}" \
  --request-timeout 30 \
  --workers 1 || status=$?
if [ "$status" -ne 0 ]; then
  echo "Schemathesis found problems; the server's log:" >&2
  tail -50 "$data/stderr" >&2
fi
exit "$status"
