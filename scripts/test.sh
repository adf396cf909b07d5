#!/usr/bin/env bash
# Runs every test: installs what is missing, then one `swift test`, then
# the Debian package's install test (scripts/test-deb.sh) and the
# documentation build with warnings as errors (scripts/docs.sh). Arguments
# go to `swift test` (`--filter X` runs only those tests, without the rest).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift test "$@"
if [ $# -eq 0 ]; then
    bash scripts/test-deb.sh
    bash scripts/docs.sh
fi
