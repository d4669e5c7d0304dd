#!/usr/bin/env bash
# The reverse-proxy tests: Debian's nginx and caddy, with the shipped Deploy/nginx/stratus.conf
# and Deploy/caddy/Caddyfile adapted to loopback ports, in front of `stratus serve --behind-proxy`
# (ReverseProxyTests, CaddyReverseProxyTests).
#
#   Scripts/test-reverse-proxy.sh            install nginx and caddy if missing, then run both tests
#   Scripts/test-reverse-proxy.sh install    only install them if missing (make test does, before the suite)
#
# They are installed like Scripts/install-deps.sh installs packages. Each test starts its own
# proxy (its own prefix, config and ports, on 127.0.0.1) and stops it; the system's nginx and
# caddy services are neither configured nor started by it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

missing=()
for package in nginx caddy; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1:-}" = "install" ] && exit 0

STRATUS_REQUIRE_NGINX=1 STRATUS_REQUIRE_CADDY=1 swift test --skip-build --filter "ReverseProxyTests|CaddyReverseProxyTests"
