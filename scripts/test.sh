#!/usr/bin/env bash
# Runs every test on one SQLCipher line: installs what is missing, builds
# (failing on any compiler warning in Sources/), then one `swift test`;
# on the default line also the Debian package's install test
# (scripts/test-deb.sh) and the documentation build with warnings as
# errors (scripts/docs.sh).
#
#   bash scripts/test.sh                   # Debian 12's SQLCipher 3.4.1
#   bash scripts/test.sh --sqlcipher 4     # Debian 13's SQLCipher 4.6.1 (built once by scripts/sqlcipher4.sh)
#   bash scripts/test.sh --filter X        # only those tests, without the rest
#
# Other arguments go to `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
source scripts/sqlcipher-line.sh
sqlcipher_line_parse_args "$@"
set -- "${sqlcipher_args[@]+"${sqlcipher_args[@]}"}"
# An independent SQLCipher 4 client for the interoperability tests.
SECURESTORE_PYTHON_SQLCIPHER="$(bash scripts/python-sqlcipher.sh)"
export SECURESTORE_PYTHON_SQLCIPHER
echo "== SecureStore tests on SQLCipher line $sqlcipher_line ($(sqlcipher -version 2>/dev/null | head -1))"

log="$(mktemp "${TMPDIR:-/tmp}/securestore-build.XXXXXX")"
trap 'rm -f "$log"' EXIT
if ! swift build --build-tests "${swift_line_flags[@]+"${swift_line_flags[@]}"}" 2>&1 | tee "$log"; then
    echo "error: the build failed" >&2
    exit 1
fi
# The library and the tool build without warnings; a new one fails here.
if grep -E "/Sources/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u | grep .; then
    echo "error: the build of Sources/ has warnings (above); fix them" >&2
    exit 1
fi
swift test --skip-build "${swift_line_flags[@]+"${swift_line_flags[@]}"}" "$@"
if [ $# -eq 0 ] && [ "$sqlcipher_line" = 3 ]; then
    bash scripts/test-deb.sh
    bash scripts/docs.sh
fi
