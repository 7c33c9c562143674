// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Spool",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "Spool", targets: ["Spool"]),
        .library(name: "SpoolTesting", targets: ["SpoolTesting"]),
        .executable(name: "spool", targets: ["SpoolCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        // The engine. Foundation and swift-crypto only: an iOS app links it, so never SwiftNIO.
        .target(
            name: "Spool",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // A real HTTP origin on 127.0.0.1 for tests, benchmarks and `spool demo`.
        .target(name: "SpoolTesting"),
        .executableTarget(
            name: "SpoolCommand",
            dependencies: [
                "Spool",
                "SpoolTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "SpoolTests", dependencies: ["Spool", "SpoolTesting"]),
        .testTarget(name: "SpoolTestingTests", dependencies: ["SpoolTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
