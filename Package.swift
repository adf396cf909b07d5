// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "SecureStore",
    products: [
        .library(name: "SecureStore", targets: ["SecureStore"]),
        .executable(name: "migrate-tool", targets: ["migrate-tool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // Debian's SQLCipher 3.4.1. The shim defines SQLITE_HAS_CODEC, because
        // a system library target cannot take cSettings.
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"])]
        ),
        .target(
            name: "SecureStore",
            dependencies: ["CSQLCipher"]
        ),
        .executableTarget(
            name: "migrate-tool",
            dependencies: [
                "SecureStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "SecureStoreTests",
            dependencies: ["SecureStore"]
        ),
        .testTarget(
            name: "MigrateToolTests",
            // Depending on the executable makes `swift test` build the binary
            // that these end-to-end tests run.
            dependencies: ["migrate-tool"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// One settings loop for every Swift target (system libraries take none).
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
    ]
}
