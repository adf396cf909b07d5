#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build
.build/debug/migrate-tool --version
