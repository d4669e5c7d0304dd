#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Package.swift) and runs each on its corpus.
#
#   Fuzz/Scripts/fuzz.sh [TARGET…]       every target (or the ones named), FUZZ_SECONDS each (make fuzz)
#   FUZZ_MERGE=1 Fuzz/Scripts/fuzz.sh    also merge what the run found into Fuzz/Corpus (minimized)
#
# FUZZ_SECONDS (default 60) bounds each target's run; FUZZ_JOBS (default 1) runs that many
# targets at once. FUZZ_CONFIGURATION (default release) is the build: make test's smoke run uses
# debug, which builds in about half the time (a smoke run checks that each target builds, starts
# and gets through its corpus; executions per second matter only to the long runs). Each target
# reads its committed corpus (Fuzz/Corpus/<Target>) and writes what it finds into
# .build/fuzz/work/<Target>, so a run never changes the repository unless FUZZ_MERGE=1.
# A crash, a broken invariant (FuzzCheck), an input slower than FUZZ_TIMEOUT seconds (a hang) or a
# process over 2 GB fails the run; the input is saved under .build/fuzz/artifacts/<Target>/ and the
# script prints how to replay it. The query-filter target runs with a throwaway PostgreSQL cluster
# (Scripts/test-postgres.sh), so both back ends are compared with the in-memory evaluator.
# Figures of each run (executions, coverage, corpus) go to .build/fuzz/logs/<Target>.log.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/opt/swift/usr/bin"

seconds="${FUZZ_SECONDS:-60}"
jobs="${FUZZ_JOBS:-1}"
configuration="${FUZZ_CONFIGURATION:-release}"
timeout_seconds="${FUZZ_TIMEOUT:-20}"
all=(FuzzJSON FuzzRecordOperations FuzzQueryFilter FuzzServerToServer FuzzTokens FuzzRouter FuzzDocumentPath)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# -sanitize=fuzzer,address as one flag: the driver keeps only the last -sanitize= it is given.
# -enable-testing: the targets reach internal types through @testable imports.
swift build --package-path Fuzz -c "$configuration" -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing 2>&1 \
  | grep -v "Cannot export local symbol '__asan_"
bin=$(swift build --package-path Fuzz -c "$configuration" -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing --show-bin-path)

out="$PWD/.build/fuzz"
# Swift's crash backtracer reads the crashed stack in a way AddressSanitizer reports as a bug of its
# own; libFuzzer prints the stack of a finding itself.
export SWIFT_BACKTRACE=enable=no
mkdir -p "$out/logs"

run_target() {
  local target="$1" work="$out/work/$1" artifacts="$out/artifacts/$1/"
  mkdir -p "$work" "$artifacts"
  # detect_leaks=0: Swift's runtime metadata and lazily made globals (the targets' codecs and
  # services) are still allocated at exit, which LeakSanitizer reports as leaks; a real leak per
  # input shows as growth past -rss_limit_mb instead.
  local command=("$bin/$target" -max_total_time="$seconds" -timeout="$timeout_seconds" -rss_limit_mb=2048
    -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$artifacts" "$work" "Fuzz/Corpus/$target")
  [ "$target" = FuzzQueryFilter ] && command=(Scripts/test-postgres.sh run "${command[@]}")
  # The CPU time the target got (the machine may be shared): the figure the fuzzing budget counts.
  [ -x /usr/bin/time ] && command=(/usr/bin/time -f "cpu-seconds: %U user + %S system, wall %e s" "${command[@]}")
  local status=0
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "${command[@]}" >"$out/logs/$target.log" 2>&1 || status=$?
  local done_line
  done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$out/logs/$target.log" | tail -1 || true)
  if [ "$status" -ne 0 ]; then
    echo "$target: FAILED (exit $status); the last lines of $out/logs/$target.log:" >&2
    grep -v "^    #" "$out/logs/$target.log" | tail -40 >&2
    echo "  replay: $bin/$target $artifacts<file>" >&2
    return 1
  fi
  echo "$target: ${seconds}s, no finding; $done_line; $(grep "^cpu-seconds" "$out/logs/$target.log" | tail -1)"
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$bin/$target" -merge=1 -detect_leaks=0 -artifact_prefix="$artifacts" \
      "Fuzz/Corpus/$target" "$work" >>"$out/logs/$target.merge.log" 2>&1
  fi
}

status=0
pids=()
for target in "${targets[@]}"; do
  run_target "$target" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit "$status"
