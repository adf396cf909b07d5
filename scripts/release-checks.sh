#!/usr/bin/env bash
# The checks of a release build, which CI runs beside the tests
# (scripts/test.sh):
#   - the Debian package: built, installed (dpkg -i into a scratch root, or
#     on this machine in CI), and run (scripts/test-deb.sh);
#   - the documentation: both DocC catalogs built, warnings as errors
#     (scripts/docs.sh).
#
#   bash scripts/release-checks.sh
#   bash scripts/release-checks.sh --build-only   # the release build and the tools alone (CI's first phase)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if [ "${1:-}" = --build-only ]; then
    # The package's configuration (scripts/package-deb.sh builds the same,
    # and finds it up to date), and the tools that write its manual pages
    # and the tool's DocC reference.
    export SECURESTORE_DEVELOPMENT=1
    swift build -c release --product migrate-tool --static-swift-stdlib
    swift build --product generate-manual
    swift build --product generate-docc-reference
    exit 0
fi
bash scripts/test-deb.sh
bash scripts/docs.sh
