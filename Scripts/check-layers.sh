#!/usr/bin/env bash
# The layer check, run by `make test`: fails when a module under Sources/ imports a module it may
# not, by the rules of Scripts/layers.txt (the architecture's layer table with the deviations the
# notes record; Documentation/0023-test-reliability.md). Only the package's own modules are
# checked (Foundation, Glibc and the like are the OS's). A module missing from the table fails too.
#
#   Scripts/check-layers.sh              check this checkout
#   Scripts/check-layers.sh DIR          check the Sources/ of another tree (with this table)
#   Scripts/check-layers.sh --self-test  check that a deliberate violation fails, then this checkout
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
table="$here/layers.txt"

if [ "${1:-}" = "--self-test" ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cp -R "$here/../Sources" "$scratch/Sources"
  # StratusWire (layer 2, no I/O) importing the server: a module reaching up the layers.
  printf 'import Foundation\n@testable import StratusServer\n' > "$scratch/Sources/StratusWire/LayerCheckViolation.swift"
  # StratusClient importing libpq's target: a C library outside its wrapper.
  printf '#if canImport(CLibPQ)\n    import CLibPQ\n#endif\n' > "$scratch/Sources/StratusClient/LayerCheckViolation.swift"
  if out=$("$0" "$scratch" 2>&1); then
    echo "check-layers: the self-test's violations passed; the check no longer checks" >&2
    exit 1
  fi
  for expected in "StratusWire (layer 2) imports StratusServer (layer 3)" "StratusClient imports CLibPQ"; do
    if ! grep -qF "$expected" <<<"$out"; then
      echo "check-layers: the self-test did not report '$expected'; it reported:" >&2
      echo "$out" >&2
      exit 1
    fi
  done
  echo "check-layers: the self-test's two violations were reported"
  "$0"
  exit
fi

root="${1:-$here/..}"
awk -v root="$root" '
  # The table: module, layer, then only=/never=/peers= lists.
  FNR == NR {
    if ($0 ~ /^[ \t]*(#|$)/) next
    layer[$1] = $2
    for (i = 3; i <= NF; i++) {
      split($i, kv, "=")
      n = split(kv[2], names, ",")
      for (j = 1; j <= n; j++) rule[kv[1], $1, names[j]] = 1
      if (kv[1] == "only") restricted[$1] = 1
    }
    next
  }
  # Each source line that imports: [attributes] import [kind] Module[.Member]
  {
    line = $0
    sub(/^[ \t]+/, "", line)
    while (line ~ /^(@[A-Za-z_]+(\([^)]*\))?|public|internal|package|private|fileprivate)[ \t]+/) sub(/^[^ \t]+[ \t]+/, "", line)
    if (line !~ /^import[ \t]+/) next
    sub(/^import[ \t]+/, "", line)
    sub(/^(struct|class|enum|protocol|func|var|let|typealias)[ \t]+/, "", line)
    split(line, parts, /[ \t.;\/]/)
    imported = parts[1]
    path = FILENAME
    sub("^" root "/Sources/", "", path)
    split(path, segments, "/")
    module = segments[1]
    if (!(module in layer)) { if (!(module in unknown)) { unknown[module] = 1; print "check-layers: " module " is not in Scripts/layers.txt; give it a layer there" > "/dev/stderr"; bad = 1 }; next }
    if (!(imported in layer) || imported == module) next
    where = path ":" FNR
    if (imported in restricted && !(("only", imported, module) in rule)) {
      print where ": " module " imports " imported ", a C library only its wrapper imports" > "/dev/stderr"; bad = 1
    } else if (("never", module, imported) in rule) {
      print where ": " module " imports " imported ", which the table rules out for it" > "/dev/stderr"; bad = 1
    } else if (!(imported in restricted) && layer[imported] + 0 >= layer[module] + 0 && !(("peers", module, imported) in rule)) {
      print where ": " module " (layer " layer[module] ") imports " imported " (layer " layer[imported] "), not a lower layer" > "/dev/stderr"; bad = 1
    }
  }
  END {
    if (bad) { print "check-layers: imports against the layers (Scripts/layers.txt)" > "/dev/stderr"; exit 1 }
    print "check-layers: every import of Sources/ keeps to the layers"
  }
' "$table" $(find "$root/Sources" -name '*.swift' | sort)
