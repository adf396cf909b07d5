#!/usr/bin/env bash
# GRDB 7.10.0's own tests, run against SecureStore: the yardstick of the
# README's compatibility section. Not part of CI.
#
#   bash scripts/grdb-yardstick.sh                 # every GRDB test file
#   bash scripts/grdb-yardstick.sh SQLLiteralTests TableTests   # some files
#   bash scripts/grdb-yardstick.sh --report        # the table of the last run
#   bash scripts/grdb-yardstick.sh --sqlcipher 4   # on Debian 13's SQLCipher 4.6.1 (scripts/sqlcipher4.sh)
#
# The test files are read from the local GRDB mirror at run time into a
# scratch package outside this project (GRDB's files are never committed),
# `import GRDB` becomes `import SecureStore` (`@testable` where GRDB's file
# has it: those tests read internals that SecureStore names as GRDB does),
# the C imports become
# CSQLCipher, and scripts/yardstick/GRDBTestCase.swift (our harness, with
# the helper names GRDB's tests call) encrypts every database it makes.
#
# A file that does not compile against SecureStore counts as zero passed
# tests: the script leaves it out and builds the rest. Each test class then
# runs in its own process (a crash loses one class, not the run), and a
# class whose process crashed runs again test by test.
#
# On the 4.x line the scratch package defines SQLITE_ENABLE_FTS5, as GRDB's
# own Package.swift does, since that library has FTS5; SQLCipher 3.4.1 has
# none, so GRDB's FTS5 tests are left out there.
#
# Environment: GRDB_MIRROR (the mirror's GRDB.swift.git), YARDSTICK_DIR (the
# scratch package, default $TMPDIR/securestore-grdb-yardstick, with
# -sqlcipher4 on the 4.x line),
# YARDSTICK_TIMEOUT (seconds per process, default 300).
set -euo pipefail

source "$(dirname "$0")/sqlcipher-line.sh"
sqlcipher_line_parse_args "$@"
set -- "${sqlcipher_args[@]+"${sqlcipher_args[@]}"}"
scratch_name=securestore-grdb-yardstick
fts5_define=""
if [ "$sqlcipher_line" = 4 ]; then
    scratch_name=securestore-grdb-yardstick-sqlcipher4
    fts5_define='.define("SQLITE_ENABLE_FTS5"),'
fi
source "$(dirname "$0")/yardstick/mirror.sh" grdb-yardstick YARDSTICK_DIR "$scratch_name"
timeout="${YARDSTICK_TIMEOUT:-300}"

tests="$scratch/Tests/GRDBTests"

# A table by file: tests, passed, failed, skipped (or "does not compile").
report() {
    {
        printf '%-58s %6s %6s %6s %7s\n' file tests passed failed skipped
        for path in "$tests"/*.swift "$scratch"/excluded/*.swift; do
            [ -e "$path" ] || continue
            file="$(basename "$path")"
            classes="$({ grep -Eo '^(final )?class [A-Za-z0-9_]+' "$path" || true; } | awk '{print $NF}' | tr '\n' '|' | sed 's/|$//')"
            [ -n "$classes" ] || continue
            if [ "$(dirname "$path")" = "$scratch/excluded" ]; then
                count="$(grep -Ec '^\s*func test[A-Za-z0-9_]*\(' "$path" || true)"
                printf '%-58s %6s %6s %6s %7s  does not compile\n' "$file" "$count" 0 - -
            else
                { grep -E "^($classes)\." "$scratch/results/outcomes.txt" || true; } | awk -v file="$file" '
                    { total++; if ($2 == "passed") p++; else if ($2 == "skipped") s++; else f++ }
                    END { if (total > 0) printf "%-58s %6d %6d %6d %7d\n", file, total, p, f, s }'
            fi
        done
    } > "$scratch/results/summary.txt"
    cat "$scratch/results/summary.txt"
    awk 'NR > 1 { t += $2; p += $3 } END { printf "total: %d of %d tests pass\n", p, t }' "$scratch/results/summary.txt"
    echo "SQLCipher line $sqlcipher_line ($(sqlcipher -version 2>/dev/null | head -1)); details: $scratch/results (outcomes.txt, one log per class)"
}

# `--report`: the table of the last run, without running again.
if [ "${1:-}" = "--report" ]; then report; exit 0; fi

rm -rf "$tests" "$scratch/excluded" "$scratch/results"
mkdir -p "$tests" "$scratch/excluded" "$scratch/results"

# Support files of GRDB's suite: always taken (they declare no tests).
support="Mutex.swift FailureTestCase.swift RowTestCase.swift BackupTestCase.swift ValueObservationRecorder.swift AsyncSemaphore.swift"
resources="Betty.jpeg InflectionsTests.json Issue1383.sqlite db.SQLCipher3"

if [ "$#" -gt 0 ]; then
    wanted=""
    for name in "$@"; do wanted="$wanted ${name%.swift}.swift"; done
else
    wanted="$(git -C "$mirror" ls-tree --name-only "$tag" Tests/GRDBTests/ | sed -n 's|^Tests/GRDBTests/\(.*\.swift\)$|\1|p' | grep -v '^GRDBTestCase.swift$' | tr '\n' ' ')"
fi

for file in $wanted $support; do
    [ -e "$tests/$file" ] && continue
    git -C "$mirror" show "$tag:Tests/GRDBTests/$file" > "$tests/$file" \
        || { echo "grdb-yardstick: no Tests/GRDBTests/$file in GRDB $tag" >&2; exit 66; }
    # The import is the only change to GRDB's code.
    sed -i -E -e 's/^(@testable )?import GRDB( .*)?$/\1import SecureStore/' \
           -e 's/^import GRDBSQLite$/import CSQLCipher/' \
           -e 's/^import SQLite3$/import CSQLCipher/' "$tests/$file"
done
for file in $resources; do git -C "$mirror" show "$tag:Tests/GRDBTests/$file" > "$tests/$file"; done
cp "$repo/scripts/yardstick/GRDBTestCase.swift" "$tests/GRDBTestCase.swift"

resource_list=""
for file in $resources; do resource_list="$resource_list .copy(\"$file\"),"; done
cat > "$scratch/Package.swift" <<EOF
// swift-tools-version: 6.1
// Generated by scripts/grdb-yardstick.sh: GRDB $tag's tests against SecureStore.
import PackageDescription

let package = Package(
    name: "GRDBYardstick",
    dependencies: [.package(path: "$repo")],
    targets: [
        .testTarget(
            name: "GRDBTests",
            dependencies: [
                .product(name: "SecureStore", package: "$(basename "$repo")"),
                .product(name: "CSQLCipher", package: "$(basename "$repo")"),
            ],
            resources: [$resource_list],
            swiftSettings: [
                // As GRDB builds its tests with SQLCipher and encryption on.
                .define("SQLITE_HAS_CODEC"),
                .define("GRDBCIPHER_USE_ENCRYPTION"),
                .define("SQLITE_DISABLE_SNAPSHOT"),
                $fts5_define
                .swiftLanguageMode(.v5),
                .enableUpcomingFeature("InferSendableFromCaptures"),
                .enableUpcomingFeature("GlobalActorIsolatedTypesUsability"),
            ]
        ),
    ]
)
EOF

cd "$scratch"
# Build; leave out the files with errors; again until it builds.
for round in $(seq 1 30); do
    if swift build --build-tests "${swift_line_cflags[@]+"${swift_line_cflags[@]}"}" > "$scratch/results/build-$round.log" 2>&1; then
        break
    fi
    failing="$(grep -o "$tests/[A-Za-z0-9+_-]*\.swift:[0-9]*:[0-9]*: error" "$scratch/results/build-$round.log" \
        | sed 's|:.*||' | sort -u)"
    if [ -z "$failing" ]; then
        echo "grdb-yardstick: the build failed outside GRDB's test files:" >&2
        grep -m 20 "error" "$scratch/results/build-$round.log" >&2
        exit 70
    fi
    for path in $failing; do
        if [ "$(basename "$path")" = GRDBTestCase.swift ]; then
            echo "grdb-yardstick: the harness does not compile:" >&2
            grep -m 20 "GRDBTestCase.swift.*error" "$scratch/results/build-$round.log" >&2
            exit 70
        fi
        echo "does not compile: $(basename "$path")"
        mv "$path" "$scratch/excluded/"
    done
done

bundle="$(find "$scratch/.build/debug/" -maxdepth 1 -name '*PackageTests.xctest' | head -n 1)"
swift test list --skip-build "${swift_line_cflags[@]+"${swift_line_cflags[@]}"}" 2>/dev/null | grep '^GRDBTests\.' > "$scratch/results/tests.txt" || true

# One process per class; a class whose process died runs test by test.
run() { # filter, log
    timeout --kill-after=10 "$timeout" "$bundle" "$1" > "$2" 2>&1 || true
}
: > "$scratch/results/outcomes.txt"
for class in $(sed 's|/.*||' "$scratch/results/tests.txt" | sort -u); do
    log="$scratch/results/${class#GRDBTests.}.log"
    run "$class" "$log"
    grep -Eo "^Test Case '[A-Za-z0-9_]+\.[A-Za-z0-9_]+' (passed|failed|skipped)" "$log" \
        | sed -E "s/^Test Case '([^']*)' (.*)$/\1 \2/" > "$log.outcomes" || true
    for test in $(grep "^$class/" "$scratch/results/tests.txt" | sed 's|^GRDBTests\.||; s|/|.|'); do
        if ! grep -q "^$test " "$log.outcomes"; then
            single="$scratch/results/$test.log"
            run "GRDBTests.${test/./\/}" "$single"
            outcome="$(grep -Eo "^Test Case '$test' (passed|failed|skipped)" "$single" | sed -E 's/.* //' || true)"
            echo "$test ${outcome:-crashed}" >> "$log.outcomes"
        fi
    done
    cat "$log.outcomes" >> "$scratch/results/outcomes.txt"
done

report
