import Foundation
import SpoolTesting
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

    /// Finds `spool` beside the test binary.
    init() throws {
        executable = try SpoolExecutable.url()
    }

    /// Runs `executable` instead (a wrapper such as `unshare` that runs `spool` itself).
    init(executable: URL) {
        self.executable = executable
    }

    /// Runs `executable arguments…`, waiting at most `timeout` seconds.
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

struct CommandRunnerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
