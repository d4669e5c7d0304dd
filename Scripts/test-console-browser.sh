#!/usr/bin/env bash
# The console's browser suite (Documentation/0022-console.md): Debian's chromium, headless, driven
# through chromium-driver by a small WebDriver client (Tests/Browser, Python's standard library only)
# against `stratus serve` on 127.0.0.1. Screenshots of each page go to .build/console-browser.
#
#   Scripts/test-console-browser.sh            install chromium and chromium-driver if missing, then run the suite
#   Scripts/test-console-browser.sh install    only install them
#
# Packages are installed by Scripts/install-deps.sh --console-browser. Run after a build (make test builds first).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"

Scripts/install-deps.sh --console-browser
[ "${1:-}" = "install" ] && exit 0

bin=$(swift build --show-bin-path)
[ -x "$bin/stratus" ] || { echo "test-console-browser: build first ($bin/stratus is missing)"; exit 1; }
rm -rf .build/console-browser
PYTHONDONTWRITEBYTECODE=1 python3 Tests/Browser/console_browser_test.py --stratus "$bin/stratus" --artifacts .build/console-browser
