#!/usr/bin/env bash
# The tree's formatting, by the toolchain's swift-format with the repository's .swift-format
# (4 spaces, lines up to 160, existing line breaks kept).
#
#   Scripts/format.sh           rewrites every Swift file in place
#   Scripts/format.sh --check   changes nothing; fails listing the files that are not formatted (make test)
#
# Generated files say `// swift-format-ignore-file` (the console's embedded resources) or live
# outside the formatted paths (Examples/DocComments, regenerated from the doc comments).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

paths=(Package.swift Sources Tests Benchmarks/Package.swift Benchmarks/Sources Fuzz/Package.swift Fuzz/Sources Examples/Seed Scripts)

if [ "${1:-}" != "--check" ]; then
  swift format format --configuration .swift-format --in-place --recursive --parallel "${paths[@]}"
  exit 0
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mapfile -t files < <(git ls-files -- "${paths[@]}" | grep '\.swift$')
cp --parents -t "$scratch" "${files[@]}"
swift format format --configuration .swift-format --in-place --parallel "${files[@]/#/$scratch/}"
unformatted=()
for file in "${files[@]}"; do
  cmp -s "$file" "$scratch/$file" || unformatted+=("$file")
done
if [ "${#unformatted[@]}" -gt 0 ]; then
  echo "format: ${#unformatted[@]} file(s) not formatted as .swift-format says; run Scripts/format.sh:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "format: every Swift file is formatted"
