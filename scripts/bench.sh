#!/usr/bin/env bash
# The benchmark (see BENCHMARKS.md): SecureStore and GRDB 7.10.0, each beside
# the raw-C floor of its own SQLite, in release builds, tables at the end.
# GRDB runs twice: on the system SQLite (plaintext), and on the same
# SQLCipher as SecureStore (encrypted and plaintext; a scratch copy of GRDB
# outside this project, scripts/grdb-sqlcipher.sh).
#   scripts/bench.sh [--rows N] [--rounds R]
#   scripts/bench.sh --sqlcipher 4 [...]   # SecureStore on Debian 13's SQLCipher 4.6.1 (scripts/sqlcipher4.sh)
#   scripts/bench.sh --instructions [...]  # the instruction-count gate (scripts/bench-instructions.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
for argument in "$@"; do
    [ "$argument" = --instructions ] || continue
    arguments=()
    for other in "$@"; do [ "$other" = --instructions ] || arguments+=("$other"); done
    exec bash scripts/bench-instructions.sh "${arguments[@]+"${arguments[@]}"}"
done
bash scripts/install-deps.sh
source scripts/sqlcipher-line.sh
sqlcipher_line_parse_args "$@"
set -- "${sqlcipher_args[@]+"${sqlcipher_args[@]}"}"
build_dir=Benchmarks/SecureStoreBenchmark/.build
[ "$sqlcipher_line" = 4 ] && build_dir=Benchmarks/SecureStoreBenchmark/.build-sqlcipher4
# GRDB's comparison runs on the system SQLite (its own package, never linked
# with libsqlcipher).
if [ ! -f /usr/include/sqlite3.h ]; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsqlite3-dev >/dev/null
fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT

echo "== building (release)" >&2
swift build -c release --package-path Benchmarks/SecureStoreBenchmark --scratch-path "$build_dir" \
    "${swift_line_cflags[@]+"${swift_line_cflags[@]}"}" >&2
swift build -c release --package-path Benchmarks/GRDBComparison >&2
grdb_sqlcipher_build=Benchmarks/GRDBComparison/.build-sqlcipher$sqlcipher_line
GRDB_SQLCIPHER_PACKAGE="$(bash scripts/grdb-sqlcipher.sh --sqlcipher "$sqlcipher_line")" \
    swift build -c release --package-path Benchmarks/GRDBComparison --scratch-path "$grdb_sqlcipher_build" \
    "${swift_line_cflags[@]+"${swift_line_cflags[@]}"}" >&2

echo "== SecureStore (SQLCipher $(sqlcipher -version 2>/dev/null | head -1 || echo '?'))" >&2
"$build_dir"/release/securestore-benchmark "$@" | tee -a "$results" | grep -v '^RESULT'
echo "== GRDB 7.10.0 (system SQLite)" >&2
Benchmarks/GRDBComparison/.build/release/grdb-comparison "$@" >> "$results"
echo "== GRDB 7.10.0 on SQLCipher $(sqlcipher -version 2>/dev/null | head -1 || echo '?')" >&2
"$grdb_sqlcipher_build"/release/grdb-comparison "$@" >> "$results"

# side_by_side TITLE MODE GRDB WORKLOAD...: SecureStore and GRDB (GRDB: the
# RESULT name of the GRDB build, grdb or grdb-sqlcipher) in MODE, each ratio
# to the raw-C floor of its own SQLite in the same run.
side_by_side() {
    echo
    echo "$1"
    local mode="$2" grdb="$3"
    shift 3
    awk -F'\t' -v wanted="$(printf '%s|' "$@")" -v mode="$mode" -v grdb="$grdb" '
        BEGIN { n = split(wanted, list, "|"); for (i = 1; i < n; i++) want[list[i]] = 1; n = 0 }
        $1 == "FAILED" && $4 == mode && $2 == grdb && ($3 in want) {
            k = $3 "|" $5; failed[k] = 1; reason[k] = $6
            if (!(k in seen)) { seen[k] = 1; order[n++] = k }
        }
        $1 == "RESULT" && $4 == mode && ($2 == "securestore" || $2 == grdb) && ($3 in want) {
            k = $3 "|" $5; ms[$2 "|" k] = $6; ratio[$2 "|" k] = $6 / $7
            if (!(k in seen)) { seen[k] = 1; order[n++] = k }
        }
        END {
            if (n == 0) { print "(no results)"; exit }
            printf "%-20s %-30s %14s %14s\n", "workload", "variant", "SecureStore", "GRDB 7.10.0"
            for (i = 0; i < n; i++) {
                split(order[i], p, "|")
                # Cases that only SecureStore runs (the API cost alone).
                if (!((grdb "|" order[i]) in ms) && !(order[i] in failed)) continue
                if (order[i] in failed) {
                    printf "%-20s %-30s %8.1f ms %4.2fx  GRDB fails: %s\n", p[1], p[2],
                        ms["securestore|" order[i]], ratio["securestore|" order[i]], substr(reason[order[i]], 1, 60)
                    continue
                }
                printf "%-20s %-30s %8.1f ms %4.2fx %8.1f ms %4.2fx\n", p[1], p[2],
                    ms["securestore|" order[i]], ratio["securestore|" order[i]],
                    ms[grdb "|" order[i]], ratio[grdb "|" order[i]]
            }
            # The targets that compare the two libraries.
            k = "W5 associations|including(all:)"
            if (ratio["securestore|" k] > 0 && ratio[grdb "|" k] > 0)
                printf "W5 target: SecureStore at most half of GRDB'"'"'s ratio: %.2fx vs %.2fx / 2: %s\n",
                    ratio["securestore|" k], ratio[grdb "|" k], (ratio["securestore|" k] <= ratio[grdb "|" k] / 2 ? "met" : "MISSED")
            # W6: what an active observation costs the writer, as a ratio to
            # the same library without it ("pool, no observation" is its floor).
            k = "W6 observed commits|pool, count observed"
            if (ratio["securestore|" k] > 0 && ratio[grdb "|" k] > 0)
                printf "W6 target: the observation costs the writer no more than GRDB'"'"'s: %.2fx vs %.2fx: %s\n",
                    ratio["securestore|" k], ratio[grdb "|" k], (ratio["securestore|" k] <= ratio[grdb "|" k] ? "met" : "MISSED")
        }' "$results"
}

side_by_side "W1/W2 side by side, plaintext, GRDB on the system SQLite (ratio = median / raw-C floor of the same SQLite, same run; one Swift source compiled against both libraries):" \
    plaintext grdb "W1 insert" "W2 fetch"
side_by_side "W5/W6 side by side, plaintext, GRDB on the system SQLite:" \
    plaintext grdb "W5 associations" "W6 observed commits"
side_by_side "W1/W2/W5/W6 side by side, encrypted, GRDB on the same SQLCipher (ratio to the raw-C floor on that SQLCipher, same run):" \
    encrypted grdb-sqlcipher "W1 insert" "W2 fetch" "W5 associations" "W6 observed commits"
