#!/usr/bin/env bash
# The library's tests under a sanitizer: the proof that the unsafe code on
# hot paths (unowned(unsafe), Unmanaged, @unchecked Sendable, thread-local
# caches) is sound. Fails on any report.
#
#   bash scripts/sanitize.sh address [--filter X]   # AddressSanitizer
#   bash scripts/sanitize.sh thread  [--filter X]   # ThreadSanitizer
#   bash scripts/sanitize.sh thread --build-only    # the build alone (CI's first phase)
#
# The test cases run in processes side by side (`swift test --parallel`),
# as in scripts/test.sh.
#
# Runs SecureStoreTests (the library; MigrateToolTests run the tool as a
# child process, which the sanitizer would not see into), in its own build
# folder (.build-sanitize-address, .build-sanitize-thread).
#
# AddressSanitizer stops at the first error (exit code != 0). Its leak
# checker is off: at exit it lists what the process keeps for its whole
# life (the Swift runtime's metadata caches, XCTest's test list,
# Foundation's globals), none of which is a leak of a test's objects.
# ThreadSanitizer lists every race and then exits with 66; its output is
# also searched for "WARNING: ThreadSanitizer", so that a report fails the
# run even if the process exits otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer="${1:?usage: scripts/sanitize.sh address|thread [--filter X]}"
shift
case "$sanitizer" in
    address) export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1" ;;
    thread) export TSAN_OPTIONS="halt_on_error=0:exitcode=66:second_deadlock_stack=1" ;;
    *) echo "error: the sanitizer must be address or thread, not '$sanitizer'" >&2; exit 64 ;;
esac
build_only=no
if [ "${1:-}" = --build-only ]; then build_only=yes; shift; fi
filter=(--filter SecureStoreTests)
[ $# -gt 0 ] && filter=("$@")
bash scripts/install-deps.sh
source scripts/sqlcipher-line.sh
sqlcipher_line_setup
SECURESTORE_PYTHON_SQLCIPHER="$(bash scripts/python-sqlcipher.sh)"
export SECURESTORE_PYTHON_SQLCIPHER
build=(--scratch-path ".build-sanitize-$sanitizer" --sanitize="$sanitizer")
[ "$sqlcipher_line" = 4 ] && build=(--scratch-path ".build-sanitize-$sanitizer-sqlcipher4" --sanitize="$sanitizer" "${swift_line_cflags[@]}")
echo "== SecureStoreTests under the $sanitizer sanitizer (SQLCipher line $sqlcipher_line)"
swift build --build-tests "${build[@]}"
[ "$build_only" = no ] || exit 0
log="$(mktemp "${TMPDIR:-/tmp}/securestore-sanitize.XXXXXX")"
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --parallel --num-workers "${SECURESTORE_TEST_WORKERS:-$(( 2 * $(nproc) ))}" \
    "${build[@]}" "${filter[@]}" 2>&1 | tee "$log" || status=$?
if grep -q "WARNING: ThreadSanitizer\|ERROR: AddressSanitizer\|SUMMARY: .*Sanitizer" "$log"; then
    echo "error: the $sanitizer sanitizer reported (above)" >&2
    grep "SUMMARY: .*Sanitizer" "$log" | sort | uniq -c >&2 || true
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "error: the tests failed under the $sanitizer sanitizer (exit $status)" >&2
    exit "$status"
fi
echo "$sanitizer sanitizer: no report"
