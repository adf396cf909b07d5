// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
    name: "SecureStore",
    products: [
        .library(name: "SecureStore", targets: ["SecureStore"]),
        // The migrate-tool commands, for apps that build their own tool
        // around a DatabaseMigrator registered in Swift.
        .library(name: "MigrateToolKit", targets: ["MigrateToolKit"]),
        .executable(name: "migrate-tool", targets: ["migrate-tool"]),
        // The raw C API, for the benchmark's floor (Benchmarks/). The
        // library itself calls it only from Sources/SecureStore/Core.
        .library(name: "CSQLCipher", targets: ["CSQLCipher"]),
    ],
    // Version ranges, never exact versions: an app resolves these beside its
    // own dependencies. Each range starts at the version CI builds and tests.
    // Cryptography (SHA-256, PBKDF2, the Ed25519 signatures of migration
    // directories) comes from OpenSSL's libcrypto, which SQLCipher links.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // OrderedDictionary: the children of a request, in the order given.
        // Kept rather than rewritten: Apple maintains it, and SwiftNIO (so
        // every Hummingbird or Vapor app) depends on it already.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // Debian's SQLCipher 3.4.1. The shim defines SQLITE_HAS_CODEC, because
        // a system library target cannot take cSettings.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev", "libssl-dev"])]
        ),
        // prctl(2), which Swift cannot call (it is variadic): keeps key
        // material out of core dumps and away from debuggers.
        .target(name: "CProcessControl"),
        .target(
            name: "SecureStore",
            dependencies: [
                "CSQLCipher",
                "CProcessControl",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "MigrateToolKit",
            dependencies: [
                "SecureStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "migrate-tool",
            dependencies: ["MigrateToolKit"]
        ),
        // An app's own migrate tool: the Zalora migrations registered in Swift.
        .executableTarget(
            name: "zalora-migrate",
            dependencies: ["MigrateToolKit", "SecureStore"],
            path: "Examples/zalora-migrate"
        ),
        // A library catalogue: associations, a request extension, SQL
        // literals and a subquery on an encrypted file.
        .executableTarget(
            name: "library-example",
            dependencies: ["SecureStore"],
            path: "Examples/library"
        ),
        // Runs the real command-line clients (sqlcipher, sqlite3, the tool).
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "SecureStoreTests",
            dependencies: ["SecureStore", "TestSupport"]
        ),
        .testTarget(
            name: "MigrateToolTests",
            // Depending on the executables makes `swift test` build the
            // binaries that these end-to-end tests run.
            dependencies: ["migrate-tool", "zalora-migrate", "library-example", "TestSupport", "SecureStore"]
        ),
        // The documentation's examples: each article's code compiles and
        // runs here, and a test checks the articles still show this code.
        .testTarget(
            name: "DocumentationTests",
            dependencies: ["SecureStore"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// What only this repository's own tests and documentation use. SwiftPM
// resolves every package a manifest declares for every app that depends on
// it, so these are declared only when SECURESTORE_DEVELOPMENT is set
// (scripts/test.sh, scripts/sanitize.sh, scripts/docs.sh and CI set it):
// an app's resolution never meets them.
if ProcessInfo.processInfo.environment["SECURESTORE_DEVELOPMENT"] != nil {
    package.dependencies += [
        // Property-based fuzzing of the parsers.
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `swift package generate-documentation` (scripts/docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ]
    // Generated inputs for the migration-file and key-file parsers
    // (SECURESTORE_FUZZ_COUNT inputs per property; see RELIABILITY.md).
    package.targets.append(.testTarget(
        name: "ParserFuzzTests",
        dependencies: [
            "SecureStore", "MigrateToolKit",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ]
    ))
}

// One settings loop for every Swift target (system libraries take none).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
    ]
}
