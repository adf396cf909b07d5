// swift-tools-version: 6.1
import PackageDescription

// GRDB 7.10.0 on the system SQLite, measured with the same workloads and the
// same raw-C floor as securestore-benchmark. A package of its own: GRDB and
// the system libsqlite3 must never be linked into a process that also links
// libsqlcipher (both export sqlite3_*).
let package = Package(
    name: "GRDBComparison",
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "grdb-comparison",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
