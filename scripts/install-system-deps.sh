#!/usr/bin/env bash
# Debian packages the test suite needs (none yet beyond Node); idempotent.
set -euo pipefail
exit 0
