#!/usr/bin/env bash
# Installs the Debian packages Stratus builds and tests with, if any is missing.
# Safe to run again: it asks apt only when something is not installed.
set -euo pipefail

packages=(pkg-config libsqlite3-dev libpq-dev postgresql libmicrohttpd-dev libssl-dev libsodium-dev libcurl4-openssl-dev openssl curl
  python3 python3-venv)
for option in "$@"; do
  case "$option" in
    --bench) packages+=(wrk) ;;
    --console-browser) packages+=(chromium chromium-driver) ;;  # Scripts/test-console-browser.sh
    *) echo "install-deps: unknown option $option" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
