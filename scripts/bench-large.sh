#!/usr/bin/env bash
# Crash-safe rekey against raw in-place rekey on a large encrypted file:
# wall time and peak RSS of each (BENCHMARKS.md, "W4 at 1 GB and 10 GB").
#
#   scripts/bench-large.sh [--sqlcipher 3|4] [SIZE_GB] [FOLDER]
#
# Makes an encrypted file of about SIZE_GB GB (default 1) in FOLDER
# (default a new folder under /var/tmp; it needs 2.2 times that much free
# space) with the `sqlcipher` CLI, then, on copies of it:
#   raw        PRAGMA rekey in the sqlcipher CLI (in place, one transaction,
#              SQLite's rollback journal)
#   crash-safe migrate-tool rekey (export to a private temporary file,
#              fsync, verify: row counts and integrity check, rename)
# and checks that the new key opens each result. Peak RSS is GNU time's
# maximum resident set size. Runs alternate, raw first; each is timed once
# per round (ROUNDS, default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sqlcipher-line.sh
sqlcipher_line_parse_args "$@"
set -- "${sqlcipher_args[@]+"${sqlcipher_args[@]}"}"
size_gb="${1:-1}"
folder="${2:-$(mktemp -d /var/tmp/securestore-large.XXXXXX)}"
rounds="${ROUNDS:-1}"
mkdir -p "$folder"
chmod 700 "$folder"

swift build -c release --product migrate-tool "${swift_line_flags[@]+"${swift_line_flags[@]}"}" >&2
bin="$(swift build -c release --show-bin-path "${swift_line_flags[@]+"${swift_line_flags[@]}"}")"
tool="$bin/migrate-tool"

export OLD_KEY="large file old key" NEW_KEY="large file new key"
source_file="$folder/source.db"
# 1,000-byte rows, 100,000 per transaction.
rows_per_gb=1000000
total_rows=$(( size_gb * rows_per_gb ))
if [ ! -s "$source_file" ]; then
    echo "== making $source_file ($size_gb GB, $total_rows rows)" >&2
    {
        echo "PRAGMA key = '$OLD_KEY';"
        echo "CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB);"
        done_rows=0
        while [ "$done_rows" -lt "$total_rows" ]; do
            echo "BEGIN;"
            echo "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)"
            echo "  INSERT INTO item (payload) SELECT randomblob(1000) FROM n;"
            echo "COMMIT;"
            done_rows=$(( done_rows + 100000 ))
        done
    } | sqlcipher -batch "$source_file" > /dev/null
fi
bytes=$(stat -c %s "$source_file")
echo "== $(sqlcipher -version | head -1); file: $bytes bytes" >&2

count_with_new_key() {
    printf "PRAGMA key = '%s';\nSELECT count(*) FROM item;\n" "$NEW_KEY" | sqlcipher -batch "$1" | tail -1
}

measure() { # name script (run by bash with the file as $1)
    local name="$1" script="$2"
    local copy="$folder/$name.db"
    rm -f "$copy" "$copy-journal"
    cp "$source_file" "$copy"
    sync
    local stats
    /usr/bin/time -o "$folder/$name.time" -f "%e %M" bash -c "$script" bash "$copy" > /dev/null 2> "$folder/$name.err"
    stats=$(tail -1 "$folder/$name.time")
    local rows
    rows=$(count_with_new_key "$copy")
    [ "$rows" = "$total_rows" ] || { echo "error: $name: the new key reads $rows rows, not $total_rows" >&2; cat "$folder/$name.err" >&2; exit 1; }
    echo "$name ${stats% *} ${stats#* }"
    rm -f "$copy"
}

# The keys come from the environment (OLD_KEY, NEW_KEY), never argv.
raw_rekey='printf "PRAGMA key = '"'"'%s'"'"';\nPRAGMA rekey = '"'"'%s'"'"';\n" "$OLD_KEY" "$NEW_KEY" | sqlcipher -batch "$1"'
# The new file keeps the line's default iteration count, as the raw rekey
# does (without it, the tool would give it 1,300,000 on SQLCipher 3.4.1).
kdf_iter=64000
[ "$sqlcipher_line" = 4 ] && kdf_iter=256000
crash_safe_rekey="\"$tool\" rekey \"\$1\" --key-env OLD_KEY --new-key-env NEW_KEY --new-kdf-iter $kdf_iter"

results=()
for round in $(seq 1 "$rounds"); do
    results+=("$(measure raw "$raw_rekey")")
    results+=("$(measure crash-safe "$crash_safe_rekey")")
    echo "round $round/$rounds done" >&2
done
printf "%-12s %10s %14s\n" variant seconds "peak RSS (MB)"
for result in "${results[@]}"; do
    read -r name seconds kilobytes <<< "$result"
    printf "%-12s %10s %14s\n" "$name" "$seconds" "$(( kilobytes / 1024 ))"
done
