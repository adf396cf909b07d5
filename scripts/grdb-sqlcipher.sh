#!/usr/bin/env bash
# GRDB 7.10.0 built on SQLCipher, for the benchmark's encrypted comparison
# (scripts/bench.sh): a scratch copy of GRDB outside this project. Prints
# the copy's path.
#
#   bash scripts/grdb-sqlcipher.sh [--sqlcipher 3|4]
#
# GRDB's Package.swift lists what "GRDB+SQLCipher" takes: no GRDBSQLite
# module, SQLITE_HAS_CODEC and SQLCipher defined, and two modules, SQLCipher
# (sqlite3.h with the codec's functions) and GRDBSQLCipher, which GRDB's
# files import. Here SQLCipher is a system-library module over the
# distribution's libsqlcipher (or scripts/sqlcipher4.sh's prefix: bench.sh
# passes that line's -I and -L flags), with the three helpers GRDB calls
# from its GRDBSQLite shim written anew, and GRDBSQLCipher re-exports it.
# On the 3.x line (SQLite 3.15.2): GRDB's one `sqlite3_prepare_v3` call
# (SQLite 3.20) becomes `sqlite3_prepare_v2` (its flags are hints: 0, or
# "persistent" for cached statements; the flag's name is defined for it),
# and FTS5 is off, as in
# scripts/grdb-yardstick.sh.
#
# GRDB's files are read from the local mirror (GRDB_MIRROR, default
# /opt/swift-packages/groue/GRDB.swift.git) into
# $XDG_CACHE_HOME/securestore (default ~/.cache/securestore)/grdb-7.10.0-
# sqlcipher<line>-<hash of this script>; none is ever committed here.
set -euo pipefail
source "$(dirname "$0")/sqlcipher-line.sh"
sqlcipher_line_parse_args "$@"

mirror="${GRDB_MIRROR:-/opt/swift-packages/groue/GRDB.swift.git}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/securestore"
hash=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)
copy="$cache/grdb-7.10.0-sqlcipher$sqlcipher_line-$hash"
if [ -f "$copy/Package.swift" ]; then
    echo "$copy"
    exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d "$cache/grdb-sqlcipher.XXXXXX")
trap 'rm -rf "$work"' EXIT
git -C "$mirror" archive 7.10.0 GRDB LICENSE | tar -x -C "$work"

defines='.define("SQLITE_HAS_CODEC"), .define("SQLCipher"), .define("SQLITE_DISABLE_SNAPSHOT"),'
if [ "$sqlcipher_line" = 4 ]; then
    defines="$defines .define(\"SQLITE_ENABLE_FTS5\"),"
else
    # SQLite 3.15.2 has no sqlite3_prepare_v3: the same call without flags.
    file="$work/GRDB/Core/Statement.swift"
    grep -q 'sqlite3_prepare_v3($' "$file"
    perl -0pi -e 's/sqlite3_prepare_v3\(\n(\s*)database\.sqliteConnection, statementStart, -1, prepFlags,/sqlite3_prepare_v2(\n$1database.sqliteConnection, statementStart, -1,/' "$file"
    ! grep -q 'sqlite3_prepare_v3(' "$file"
fi

cat > "$work/Package.swift" <<EOF
// swift-tools-version:6.1
// GRDB 7.10.0 on SQLCipher: written by SecureStore's scripts/grdb-sqlcipher.sh.
import PackageDescription

let package = Package(
    name: "GRDB",
    products: [
        .library(name: "GRDB", targets: ["GRDB"]),
        .library(name: "SQLCipher", targets: ["SQLCipher"]),
    ],
    targets: [
        .systemLibrary(name: "SQLCipher", path: "Sources/SQLCipher"),
        .target(name: "GRDBSQLCipher", dependencies: ["SQLCipher"], path: "Sources/GRDBSQLCipher"),
        .target(
            name: "GRDB",
            dependencies: ["SQLCipher", "GRDBSQLCipher"],
            path: "GRDB",
            resources: [.copy("PrivacyInfo.xcprivacy")],
            cSettings: [.define("SQLITE_HAS_CODEC")],
            swiftSettings: [$defines]),
    ],
    swiftLanguageModes: [.v6]
)
EOF

mkdir -p "$work/Sources/SQLCipher" "$work/Sources/GRDBSQLCipher"
cat > "$work/Sources/SQLCipher/module.modulemap" <<'EOF'
module SQLCipher [system] {
    header "shim.h"
    link "sqlcipher"
    export *
}
EOF
cat > "$work/Sources/SQLCipher/shim.h" <<'EOF'
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

// SQLite 3.20's flag for sqlite3_prepare_v3, which GRDB names for its cached
// statements; on the 3.x line the call is sqlite3_prepare_v2 (see above) and
// the flag goes nowhere.
#ifndef SQLITE_PREPARE_PERSISTENT
#define SQLITE_PREPARE_PERSISTENT 0x01
#endif

// The variadic sqlite3_config and sqlite3_db_config calls GRDB makes
// through its own shim's functions.
typedef void (*_errorLogCallback)(void *argument, int code, const char *message);

static inline void _registerErrorLogCallback(_errorLogCallback callback) {
    sqlite3_config(SQLITE_CONFIG_LOG, callback, (void *)0);
}

#ifdef SQLITE_DBCONFIG_DQS_DML
static inline void _setDoubleQuotedStringLiterals(sqlite3 *db, int on) {
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, on, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, on, (int *)0);
}
#else
static inline void _setDoubleQuotedStringLiterals(sqlite3 *db, int on) { (void)db; (void)on; }
#endif
static inline void _disableDoubleQuotedStringLiterals(sqlite3 *db) { _setDoubleQuotedStringLiterals(db, 0); }
static inline void _enableDoubleQuotedStringLiterals(sqlite3 *db) { _setDoubleQuotedStringLiterals(db, 1); }
EOF
echo '@_exported import SQLCipher' > "$work/Sources/GRDBSQLCipher/GRDBSQLCipher.swift"

rm -rf "$copy"
mv "$work" "$copy"
trap - EXIT
echo "$copy"
