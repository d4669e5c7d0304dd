#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite: a temporary directory under /tmp,
# 127.0.0.1 only, a free port, trust authentication. Stopped by its own PID file.
#
#   Scripts/test-postgres.sh run CMD…   start, run CMD with STRATUS_POSTGRES_URL set (and the suite's
#                                       parallelism bounded: SUITE_PARALLELISM, default 8), stop (also on failure)
#   eval "$(Scripts/test-postgres.sh start)"   start; prints the exports (STRATUS_POSTGRES_URL, STRATUS_POSTGRES_DIR)
#   Scripts/test-postgres.sh stop [DIR]        stop the cluster in DIR (default: $STRATUS_POSTGRES_DIR) and remove it
#
# The cluster runs with fsync, synchronous_commit and full_page_writes off (fast, not durable); with
# STRATUS_POSTGRES_STOCK=1 it keeps PostgreSQL's stock settings (fsync on), as a production server would.
set -euo pipefail

bin="${STRATUS_POSTGRES_BIN:-}"
if [ -z "$bin" ]; then
  for candidate in /usr/lib/postgresql/*/bin; do [ -x "$candidate/initdb" ] && bin="$candidate"; done
fi

as_owner() {
  # initdb and postgres refuse to run as root: run them as the `postgres` user then.
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start() {
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "test-postgres: no PostgreSQL server binaries (install Debian's 'postgresql'; Scripts/install-deps.sh does)" >&2
    exit 1
  fi
  local dir
  dir=$(mktemp -d /tmp/stratus-pg.XXXXXX)
  chmod 755 "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-locale -E UTF8 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
  local attempt port durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  # STRATUS_POSTGRES_STOCK=1: PostgreSQL's own durability settings (fsync on), for benchmarks that compare.
  [ "${STRATUS_POSTGRES_STOCK:-0}" = 1 ] && durability=""
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 30000 ))
    port_in_use "$port" && continue
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-h 127.0.0.1 -p $port -k $dir $durability -c max_connections=300" \
        start >/dev/null 2>&1; then
      echo "export STRATUS_POSTGRES_URL='postgres://postgres@127.0.0.1:$port/postgres'"
      echo "export STRATUS_POSTGRES_DIR='$dir'"
      return 0
    fi
  done
  echo "test-postgres: the server did not start:" >&2
  cat "$dir/server.log" >&2 || true
  rm -rf "$dir"
  exit 1
}

stop() {
  local dir="${1:-${STRATUS_POSTGRES_DIR:-}}"
  [ -n "$dir" ] && [ -d "$dir" ] || return 0
  case "$dir" in /tmp/stratus-pg.*) ;; *) echo "test-postgres: refusing to remove $dir" >&2; return 1 ;; esac
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 || {
      pid=$(head -1 "$dir/data/postmaster.pid" 2>/dev/null || true)
      [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null || true
      sleep 1
    }
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) shift; stop "${1:-}" ;;
  run)
    shift
    exports=$(start) || exit 1
    eval "$exports"
    trap 'stop "$STRATUS_POSTGRES_DIR"' EXIT INT TERM
    export STRATUS_REQUIRE_POSTGRES=1
    # At most this many test cases at once (Documentation/0023-test-reliability.md): unbounded,
    # Swift Testing starts every test of the bundle together — hundreds of live servers, over a
    # thousand threads on two cores — and each test's own deadlines (a request's 60 s, a read's
    # 30 s) count the time it waits behind all the others. SUITE_PARALLELISM overrides it; a
    # width set already (the sanitizer runs' own) is kept.
    export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-${SUITE_PARALLELISM:-8}}"
    "$@"
    ;;
  *) echo "usage: $0 start | stop [DIR] | run CMD…" >&2; exit 2 ;;
esac
