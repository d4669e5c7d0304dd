#!/usr/bin/env bash
# The client-graph check (Documentation/0014), run by `make test`: the client products must reach
# nothing but the OS (and OpenSSL's libcrypto on Linux), with every platform-only import guarded.
# The manifest as it was before the split (a saved `dump-package`) must still fail the check, so a
# check that stopped checking is noticed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
dump=$(mktemp)
trap 'rm -f "$dump"' EXIT
swift package dump-package > "$dump"
swift Scripts/check-client-graph.swift "$dump" .
if swift Scripts/check-client-graph.swift Scripts/fixtures/package-before-issue-21.json > /dev/null; then
  echo "check-client-graph: the manifest from before the split passes; the check no longer checks" >&2
  exit 1
fi
