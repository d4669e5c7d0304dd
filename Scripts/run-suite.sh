#!/usr/bin/env bash
# Runs the suite command given as arguments (make test: Scripts/test-postgres.sh run swift test
# --skip-build). When at most five tests fail, they run once more, alone: a test that passes
# then is reported as FLAKY (it depends on the machine's load — each one is a bug to fix, listed
# in the run's output) and the run passes; a test that fails again fails the run. More than five
# failures are never retried.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && exit 0
failed=$(grep -aoE '✘ Test [A-Za-z0-9_]+\(' "$log" | sed 's/^✘ Test //; s/($//' | sort -u)
count=$(printf '%s\n' "$failed" | grep -c . || true)
if [ "$count" -eq 0 ] || [ "$count" -gt 5 ]; then
    echo "run-suite: $count test(s) failed; not retrying"
    exit "$status"
fi
filter=$(printf '%s\n' "$failed" | paste -sd'|')
echo "run-suite: $count test(s) failed; running them again alone: $filter"
if "$@" --filter "$filter"; then
    echo "run-suite: FLAKY (failed in the full run, passed alone): $(printf '%s\n' "$failed" | paste -sd' ')"
    exit 0
fi
echo "run-suite: failed again alone: $filter"
exit 1
