#!/usr/bin/env bash
# Runs every test on one SQLCipher line: installs what is missing, builds
# once (failing on any compiler warning in Sources/), then runs the suite's
# test cases in processes side by side (`swift test --parallel`), and
# reports: the number of tests per target, the 15 slowest test cases with
# their times, and a failure for any test case over 20 s that
# Tests/slow-tests.txt does not exempt (with its reason).
#
#   bash scripts/test.sh                   # Debian 12's SQLCipher 3.4.1
#   bash scripts/test.sh --sqlcipher 4     # Debian 13's SQLCipher 4.6.1 (built once by scripts/sqlcipher4.sh)
#   bash scripts/test.sh --filter X        # only those tests, without the rest
#   bash scripts/test.sh --build-only      # the build and its warning check, no test (CI's first phase)
#   bash scripts/test.sh --no-build        # the tests of what --build-only built (CI's second phase)
#
# Other arguments go to `swift test`. SECURESTORE_TEST_WORKERS sets how
# many test processes run at once (default: twice the cores: most tests
# wait on child processes and fsync, not on a core). The release checks (the
# Debian package's install test, the documentation build) are
# scripts/release-checks.sh; CI runs both.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
bash scripts/install-deps.sh
source scripts/sqlcipher-line.sh
sqlcipher_line_parse_args "$@"
set -- "${sqlcipher_args[@]+"${sqlcipher_args[@]}"}"
build=yes tests=yes
arguments=()
for argument in "$@"; do
    case "$argument" in
        --build-only) tests=no ;;
        --no-build) build=no ;;
        *) arguments+=("$argument") ;;
    esac
done
set -- "${arguments[@]+"${arguments[@]}"}"
# An independent SQLCipher 4 client for the interoperability tests.
SECURESTORE_PYTHON_SQLCIPHER="$(bash scripts/python-sqlcipher.sh)"
export SECURESTORE_PYTHON_SQLCIPHER
echo "== SecureStore tests on SQLCipher line $sqlcipher_line ($(sqlcipher -version 2>/dev/null | head -1))"

work="$(mktemp -d "${TMPDIR:-/tmp}/securestore-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
if [ "$build" = yes ]; then
    if ! swift build --build-tests "${swift_line_flags[@]+"${swift_line_flags[@]}"}" 2>&1 | tee "$work/build.log"; then
        echo "error: the build failed" >&2
        exit 1
    fi
    # The library and the tool build without warnings; a new one fails here.
    if grep -E "/Sources/[^:]+:[0-9]+:[0-9]+: warning:" "$work/build.log" | sort -u | grep .; then
        echo "error: the build of Sources/ has warnings (above); fix them" >&2
        exit 1
    fi
    echo "== built in $((SECONDS - started)) s"
fi
[ "$tests" = yes ] || exit 0
workers="${SECURESTORE_TEST_WORKERS:-$(( 2 * $(nproc) ))}"
status=0
swift test --skip-build --parallel --num-workers "$workers" --xunit-output "$work/tests.xml" \
    "${swift_line_flags[@]+"${swift_line_flags[@]}"}" "$@" || status=$?
python3 scripts/test-report.py "$work/tests.xml" --exemptions Tests/slow-tests.txt || { [ "$status" -ne 0 ] || status=1; }
echo "== SecureStore tests on SQLCipher line $sqlcipher_line: $( [ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s ($workers test processes at once)"
exit "$status"
