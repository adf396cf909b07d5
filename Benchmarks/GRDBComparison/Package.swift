// swift-tools-version: 6.1
import Foundation
import PackageDescription

// GRDB 7.10.0, measured with the same workloads and the same raw-C floor as
// securestore-benchmark. A package of its own: GRDB and the system libsqlite3
// must never be linked into a process that also links libsqlcipher (both
// export sqlite3_*).
//
// By default GRDB runs on the system SQLite (plaintext cases only). With
// GRDB_SQLCIPHER_PACKAGE set to the scratch copy that scripts/grdb-sqlcipher.sh
// makes, GRDB runs on SQLCipher, encrypted and plaintext, and the floor calls
// the same libsqlcipher (scripts/bench.sh builds both, in two build folders).
let grdbOnSQLCipher = ProcessInfo.processInfo.environment["GRDB_SQLCIPHER_PACKAGE"]

let package = Package(
    name: "GRDBComparison",
    dependencies: [
        grdbOnSQLCipher.map { .package(name: "GRDB", path: $0) }
            ?? .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "grdb-comparison",
            dependencies: grdbOnSQLCipher == nil
                ? [.product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift")]
                : [.product(name: "GRDB", package: "GRDB"), .product(name: "SQLCipher", package: "GRDB")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
