#!/usr/bin/env bash
# The one system package the test suite needs: a Chrome or Chromium for the browser tests
# (test/node/browser.ts drives it through playwright-core). Idempotent, and safe as `pretest`:
# - a browser is already there (CHROMIUM_PATH, or chromium / google-chrome / ... on PATH): nothing to do;
# - Debian or Ubuntu, as root (or with password-less sudo): apt-get install chromium;
# - anywhere else: one line saying what to install, and exit 0, so `npm test` still runs every other file;
#   the browser tests then fail with the same line (they are never skipped).
# STRICT=1 (CI) makes a browser that could not be found or installed an error.
set -euo pipefail
cd "$(dirname "$0")/.."

if found=$(node scripts/find-browser.mjs 2>/dev/null); then
  echo "browser for the browser tests: $found"
  exit 0
fi
if [ -n "${CHROMIUM_PATH:-}" ]; then
  node scripts/find-browser.mjs >/dev/null || true # prints why CHROMIUM_PATH does not work
  [ "${STRICT:-0}" = 1 ] && exit 1
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else SUDO="none"; fi
fi
if command -v apt-get >/dev/null 2>&1 && [ "$SUDO" != "none" ]; then
  echo "installing Debian's chromium for the browser tests (apt-get)"
  if $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null; then
    node scripts/find-browser.mjs
    exit 0
  fi
  echo "apt-get could not install chromium."
fi

node scripts/find-browser.mjs >/dev/null || true # prints what to install
[ "${STRICT:-0}" = 1 ] && exit 1
exit 0
