import Foundation
import XCTest

/// Runs the built `spool` executable as a separate process, as a user would.
struct CommandRunner {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    let executable: URL
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// Finds `spool` beside the test bundle: both are products of the same `swift build`.
    init() throws {
        let testBinary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        var candidates = [Bundle.main.bundleURL, Bundle(for: BundleMarker.self).bundleURL, testBinary]
            .map { $0.deletingLastPathComponent().appendingPathComponent("spool") }
        candidates += [Bundle.main.bundleURL.appendingPathComponent("spool")]
        if let override = ProcessInfo.processInfo.environment["SPOOL_EXECUTABLE"] {
            candidates.insert(URL(fileURLWithPath: override), at: 0)
        }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CommandRunnerError(message: "spool executable not found in \(candidates.map(\.path)); `swift build` builds it")
        }
        executable = found
    }

    /// Runs `spool arguments…`, waiting at most `timeout` seconds.
    func run(_ arguments: [String], timeout: TimeInterval = 120) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("spool-out-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("spool-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw CommandRunnerError(message: "spool \(arguments) did not finish in \(timeout) s")
        }
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

private final class BundleMarker {}

struct CommandRunnerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
