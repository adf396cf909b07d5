#!/usr/bin/env bash
# The checks of a release build, which CI runs beside the tests
# (scripts/test.sh):
#   - the Debian package: built, installed (dpkg -i into a scratch root, or
#     on this machine in CI), and run (scripts/test-deb.sh);
#   - the documentation: both DocC catalogs built, warnings as errors
#     (scripts/docs.sh).
#
#   bash scripts/release-checks.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/test-deb.sh
bash scripts/docs.sh
