import Foundation

/// The built `spool` executable, for tests and benchmarks that run it as a user would.
public enum SpoolExecutable {
    /// `spool` beside the running test binary (both are products of one `swift build`), or the path in
    /// `SPOOL_EXECUTABLE`.
    public static func url() throws -> URL {
        let testBinary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        var candidates = [Bundle.main.bundleURL, testBinary]
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
}
