// swift-tools-version: 6.1
import PackageDescription

// The benchmark lives in its own package so that `swift test` at the root
// never builds it. Run it with scripts/bench.sh (release build).
let package = Package(
    name: "SecureStoreBenchmark",
    dependencies: [
        .package(name: "SecureStore", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "securestore-benchmark",
            dependencies: [
                .product(name: "SecureStore", package: "SecureStore"),
                // The floor: the same work through raw C calls.
                .product(name: "CSQLCipher", package: "SecureStore"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
