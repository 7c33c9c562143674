import Foundation
import SpoolTesting

/// The built `spool` executable, found beside the test binary (both are products of one `swift build`);
/// `SPOOL_EXECUTABLE` overrides. The same lookup as SpoolTests' `CommandRunner`.
enum SpoolExecutable {
    static func url() throws -> URL {
        let testBinary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        var candidates = [Bundle.main.bundleURL, Bundle(for: BundleMarker.self).bundleURL, testBinary]
            .map { $0.deletingLastPathComponent().appendingPathComponent("spool") }
        candidates += [Bundle.main.bundleURL.appendingPathComponent("spool")]
        if let override = ProcessInfo.processInfo.environment["SPOOL_EXECUTABLE"] {
            candidates.insert(URL(fileURLWithPath: override), at: 0)
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ExternalCommand.Failure(
                description: "spool executable not found in \(candidates.map(\.path)); `swift build` builds it")
        }
        return found
    }

    private final class BundleMarker {}
}

/// A deterministic random number generator (SplitMix64), so a failing random test fails the same way again.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
