#!/usr/bin/env bash
# Debian packages the test suite needs; idempotent. The browser tests (test/node/*.test.ts) drive
# Debian's Chromium at /usr/bin/chromium through playwright-core.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
fi
chromium --version
