// Driven by the AVFoundation stand-in's player simulator, which exists on Linux only.
#if os(Linux)
import AVFoundationStandIn
import Foundation
import Spool
import SpoolAVFoundation
import SpoolTesting
import XCTest

/// A test origin with generated media files, a cache directory, and assets reading through Spool.
final class AdapterFixture: @unchecked Sendable {
    let origin: TestOrigin
    let directory: URL
    private(set) var cache: SpoolCache

    init(test: XCTestCase) throws {
        origin = try TestOrigin()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-av-\(UUID().uuidString)")
        cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let origin = origin
        let directory = directory
        test.addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Serves a generated file at `path`; returns its URL.
    func serve(_ path: String, length: Int64, seed: UInt64, type: String) -> URL {
        origin.serve(.generated(length: length, seed: seed), at: path, contentType: type)
        return origin.url(for: path)
    }

    /// A new cache instance on the same directory (as after an app restart).
    func reopenCache() throws {
        cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
    }

    /// Plays `script` through a fresh asset for `url` and returns the simulator's report.
    func play(_ url: URL, length: Int64, seed: UInt64, script: PlayerScript, expectedType: String? = nil) async -> SimulationReport {
        let asset = SpoolAsset(url: url, cache: cache)
        let simulator = PlayerSimulator(
            asset: asset,
            expectedBytes: { TestContent.generatedBytes(seed: seed, range: $0) },
            resourceLength: length,
            expectedContentType: expectedType)
        let report = await simulator.run(script, timeout: 120)
        withExtendedLifetime(asset) {}
        return report
    }
}
#endif
