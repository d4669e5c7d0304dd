#!/usr/bin/env bash
# The whole suite under a sanitizer, with the throwaway PostgreSQL cluster `make test` uses.
#
#   Scripts/test-sanitized.sh thread     ThreadSanitizer (make test-tsan; part of make test)
#   Scripts/test-sanitized.sh address    AddressSanitizer (make test-asan)
#
# Each sanitizer builds into a directory of its own (.build/tsan, .build/asan), so switching
# between them and the ordinary build rebuilds nothing. Every process of the run (the test bundle
# and each `stratus` child it starts) writes its reports to a file under .build/<dir>/reports;
# the run fails if any test fails or if any report was written, and prints the reports.
#
# SANITIZER_PARALLELISM (default 16) bounds how many tests run at once: unbounded, a thousand
# tests start together and each waits minutes for the two cooperative threads, past the deadlines
# meant to catch hangs (TestTimeScale stretches those by 10 under ThreadSanitizer, 4 under
# AddressSanitizer). At 48 a two-process sync test took 164 s and its child processes' 10 s
# request timeouts expired (0023); at 16 the whole TSan run passed in about 8 minutes on two
# shared cores with no report.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer="${1:-}"
case "$sanitizer" in
  thread) scratch=.build/tsan ;;
  address) scratch=.build/asan ;;
  *) echo "usage: $0 thread|address" >&2; exit 2 ;;
esac
export PATH="$PATH:/opt/swift/usr/bin"

swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"

reports="$PWD/$scratch/reports"
rm -rf "$reports"
mkdir -p "$reports"
suppressions="$PWD/Scripts/tsan-suppressions.txt"
# TSan exitcode=0: a report alone does not change a child's exit status (tests assert those); the
# report files decide instead, below, so no report in any process goes unseen.
export TSAN_OPTIONS="log_path=$reports/tsan exitcode=0 suppressions=$suppressions ${TSAN_OPTIONS:-}"
export ASAN_OPTIONS="log_path=$reports/asan detect_leaks=0 ${ASAN_OPTIONS:-}"
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SANITIZER_PARALLELISM:-16}"

status=0
Scripts/run-suite.sh Scripts/test-postgres.sh run swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" || status=$?

found=$(find "$reports" -type f | sort)
if [ -n "$found" ]; then
  echo "$sanitizer sanitizer: $(echo "$found" | wc -l) process(es) reported problems:" >&2
  for file in $found; do
    echo "== $file" >&2
    cat "$file" >&2
  done
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
echo "$sanitizer sanitizer: the suite passed with no reports"
