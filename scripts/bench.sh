#!/usr/bin/env bash
# The benchmark (see BENCHMARKS.md): SecureStore and GRDB 7.10.0, each beside
# the raw-C floor of its own SQLite, in release builds, one table at the end.
#   scripts/bench.sh [--rows N] [--rounds R]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# GRDB's comparison runs on the system SQLite (its own package, never linked
# with libsqlcipher).
if [ ! -f /usr/include/sqlite3.h ]; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsqlite3-dev >/dev/null
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT

echo "== building (release)" >&2
swift build -c release --package-path Benchmarks/SecureStoreBenchmark >&2
swift build -c release --package-path Benchmarks/GRDBComparison >&2

echo "== SecureStore (SQLCipher $(pkg-config --modversion sqlcipher 2>/dev/null || echo '?'))" >&2
Benchmarks/SecureStoreBenchmark/.build/release/securestore-benchmark "$@" | tee -a "$results" | grep -v '^RESULT'
echo "== GRDB 7.10.0 (system SQLite)" >&2
Benchmarks/GRDBComparison/.build/release/grdb-comparison "$@" >> "$results"

echo
echo "W1/W2 side by side, plaintext (ratio = median / raw-C floor of the same SQLite, same run):"
awk -F'\t' '
    $1 == "RESULT" && $4 == "plaintext" && ($3 == "W1 insert" || $3 == "W2 fetch") {
        k = $3 "|" $5; ratio[$2 "|" k] = $6 / $7; ms[$2 "|" k] = $6
        if (!(k in seen)) { seen[k] = 1; order[n++] = k }
    }
    END {
        printf "%-11s %-18s %14s %14s\n", "workload", "variant", "SecureStore", "GRDB 7.10.0"
        for (i = 0; i < n; i++) {
            split(order[i], p, "|")
            printf "%-11s %-18s %8.1f ms %4.2fx %8.1f ms %4.2fx\n", p[1], p[2],
                ms["securestore|" order[i]], ratio["securestore|" order[i]],
                ms["grdb|" order[i]], ratio["grdb|" order[i]]
        }
    }' "$results"
