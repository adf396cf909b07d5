// swift-tools-version: 6.2
import PackageDescription

// A real service on SecureStore: a Hummingbird 2 JSON API (the notes of
// each user, who authenticates with a JWT) on an encrypted DatabasePool.
// A package of its own, so that SecureStore's consumers never resolve
// Hummingbird; it depends on SecureStore by path, as an app would by version.
let package = Package(
    name: "notes-service",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SecureStore", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "notes-service",
            dependencies: [
                .product(name: "SecureStore", package: "SecureStore"),
                // The key options and key sources of migrate-tool.
                .product(name: "MigrateToolKit", package: "SecureStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
