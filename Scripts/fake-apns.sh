#!/usr/bin/env bash
# The fake APNs server's Python environment for the tests: a virtual environment under .build/
# with the pinned packages of Scripts/fake-apns/requirements.txt (from PyPI). Idempotent and quick
# when already there: it installs only when the requirements changed since the last install.
#
#   Scripts/fake-apns.sh install    make or update .build/fake-apns-venv
#   Scripts/fake-apns.sh python     print the environment's python (after installing)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.build/fake-apns-venv"
requirements="$root/Scripts/fake-apns/requirements.txt"
stamp="$venv/.requirements"

install() {
  if [ -x "$venv/bin/python3" ] && [ -f "$stamp" ] && cmp -s "$requirements" "$stamp"; then return 0; fi
  echo "fake-apns: installing the test server's Python packages into $venv" >&2
  mkdir -p "$root/.build"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
}

case "${1:-install}" in
  install) install ;;
  python) install; echo "$venv/bin/python3" ;;
  *) echo "usage: $0 install | python" >&2; exit 2 ;;
esac
