#!/usr/bin/env bash
# Runs the suite command given as arguments (make test: Scripts/test-postgres.sh run swift test
# --skip-build, which bounds how many tests run at once; Documentation/0023-test-reliability.md).
#
# A failure fails the run, and no test gets a second chance: every test waits on events, not on
# time, and the one latency test compares two medians measured in the same run, so a failure
# under load is a bug to fix, not to retry. On failure this names the failing tests.
set -uo pipefail

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && exit 0
failed=$(grep -aoE '✘ Test [A-Za-z0-9_]+\(' "$log" | sed 's/^✘ Test //; s/($//' | sort -u)
if [ -z "$failed" ]; then
    echo "run-suite: the run failed without a failing test (a crash?)"
else
    echo "run-suite: failed: $(printf '%s\n' "$failed" | paste -sd' ')"
fi
exit "$status"
