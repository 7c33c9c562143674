// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Spool",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "Spool", targets: ["Spool"]),
        .library(name: "SpoolDownloads", targets: ["SpoolDownloads"]),
        .library(name: "SpoolAVFoundation", targets: ["SpoolAVFoundation"]),
        .library(name: "SpoolProxy", targets: ["SpoolProxy"]),
        .library(name: "SpoolAsyncHTTPClient", targets: ["SpoolAsyncHTTPClient"]),
        .executable(name: "spool", targets: ["SpoolCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // `swift package generate-documentation`: the DocC articles, built in CI with warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The engine. Foundation and swift-crypto only: an iOS app links it, so never SwiftNIO.
        .target(
            name: "Spool",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // Offline downloads: a queue that survives the app's end and HLS pinning, on the engine's transfers.
        .target(name: "SpoolDownloads", dependencies: ["Spool"]),
        // AVPlayer integration. On Apple platforms it uses AVFoundation; on Linux the same source compiles
        // against AVFoundationStandIn, so it is built and tested here.
        .target(
            name: "SpoolAVFoundation",
            dependencies: [
                "Spool",
                .target(name: "AVFoundationStandIn", condition: .when(platforms: [.linux])),
            ]
        ),
        // The README's AVPlayer quick start as a target of its own, so that CI compiles it for iOS and macOS as
        // written (a test keeps the two the same); empty on Linux, which has no AVFoundation. Not a product.
        .target(name: "SpoolQuickStart", dependencies: ["Spool", "SpoolAVFoundation"]),
        // The example iOS app (README, "The example app"): compiled for iOS by `../shared/apple/check --ios26`
        // in CI, empty elsewhere; not a product, so no app links it.
        .target(
            name: "SpoolExampleApp", dependencies: ["Spool", "SpoolAVFoundation", "SpoolProxy", "SpoolDownloads"],
            path: "Examples/SpoolExampleApp"),
        // The Swift samples of the DocC articles that need no AVFoundation, compiled on every build (the tests
        // check that the articles show them as written). Not a product.
        .target(
            name: "SpoolSamples", dependencies: ["Spool", "SpoolDownloads", "SpoolProxy", "SpoolAsyncHTTPClient"]),
        // Linux only (every file is inside `#if os(Linux)`, so the module is empty elsewhere): the AVFoundation
        // surface the adapter needs, declared as Apple's SDKs declare it, and a player simulator driving it the
        // way AVPlayer does, with the recorded AVPlayer traces.
        .target(name: "AVFoundationStandIn"),
        // The local caching proxy: any player (ffmpeg, VLC, a browser, AVPlayer with HLS) plays through the
        // engine over HTTP on loopback. SwiftNIO stays here, out of the core.
        .target(
            name: "SpoolProxy",
            dependencies: [
                "Spool",
                "SpoolDownloads",
                // The proof each proxy URL carries (HMAC-SHA256 with a per-launch key).
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // An origin transport on AsyncHTTPClient: large chunks, backpressure, prompt cancellation. For servers
        // and the command line; it brings SwiftNIO, so the core stays on URLSession by default.
        .target(
            name: "SpoolAsyncHTTPClient",
            dependencies: [
                "Spool",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // A real HTTP origin on 127.0.0.1 for tests, benchmarks and `spool demo`.
        // Test support (the test origin, nginx, the link emulator), for the package's tests, benchmarks and
        // demo only: a target, not a product, so an app cannot link it by accident.
        .target(name: "SpoolTesting"),
        .executableTarget(
            name: "SpoolCommand",
            dependencies: [
                "Spool",
                "SpoolDownloads",
                "SpoolAVFoundation",
                "SpoolAsyncHTTPClient",
                "SpoolProxy",
                "SpoolTesting",
                .target(name: "AVFoundationStandIn", condition: .when(platforms: [.linux])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The benchmarks' direct player: keep-alive, HTTP/2 and TLS like a player's own client.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // `spool serve` runs its tasks on SwiftNIO's event loops (`SpoolCommand.main`).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "SpoolTests", dependencies: ["Spool", "SpoolDownloads", "SpoolTesting"]),
        .testTarget(name: "SpoolTestingTests", dependencies: ["SpoolTesting"]),
        // HTTPOrigin's HTTP semantics over both transports, and what only the AsyncHTTPClient transport
        // promises (backpressure); apart from SpoolTests, which builds without SwiftNIO.
        .testTarget(
            name: "SpoolAsyncHTTPClientTests", dependencies: ["Spool", "SpoolAsyncHTTPClient", "SpoolTesting"]),
        .testTarget(
            name: "SpoolProxyTests",
            dependencies: [
                "Spool", "SpoolDownloads", "SpoolProxy", "SpoolTesting", "SpoolAsyncHTTPClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SpoolAVFoundationTests",
            dependencies: [
                "Spool", "SpoolAVFoundation", "SpoolTesting",
                .target(name: "AVFoundationStandIn", condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(name: "AVFoundationStandInTests", dependencies: ["AVFoundationStandIn"]),
    ],
    swiftLanguageModes: [.v6]
)
