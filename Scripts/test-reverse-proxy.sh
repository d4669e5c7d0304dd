#!/usr/bin/env bash
# The reverse-proxy test: Debian's nginx, with the shipped Deploy/nginx/stratus.conf adapted to
# loopback ports, in front of `stratus serve --behind-proxy` (ReverseProxyTests).
#
#   Scripts/test-reverse-proxy.sh            install nginx if missing, then run ReverseProxyTests
#   Scripts/test-reverse-proxy.sh install    only install nginx if missing (make test does, before the suite)
#
# nginx is installed like Scripts/install-deps.sh installs packages. The test starts its own
# nginx (its own prefix, config and ports, on 127.0.0.1) and stops it; the system's nginx service
# is neither configured nor started by it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

if ! dpkg-query -W -f='${Status}' nginx 2>/dev/null | grep -q "install ok installed"; then
  echo "Installing: nginx"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends nginx >/dev/null
fi
[ "${1:-}" = "install" ] && exit 0

STRATUS_REQUIRE_NGINX=1 swift test --skip-build --filter ReverseProxyTests
