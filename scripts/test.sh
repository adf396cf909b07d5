#!/usr/bin/env bash
# Runs every test: installs what is missing, then one `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift test "$@"
