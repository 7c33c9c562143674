import Foundation

/// A long-running program (`spool serve`) started for a test or benchmark: its output lines, its memory,
/// signals, and a guaranteed end (`stop()`, also on deinit).
public final class BackgroundProcess: @unchecked Sendable {
    // @unchecked: `process` is only started here and then read; Foundation's Process is thread-safe for that.
    private let process: Process
    private let scratch: URL
    private let stdoutURL: URL
    private let stderrURL: URL

    /// The process identifier.
    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable arguments…`.
    public init(
        executable: URL, arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-bg-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        stdoutURL = scratch.appendingPathComponent("stdout")
        stderrURL = scratch.appendingPathComponent("stderr")
        process = try ExternalCommand.launch(executable, arguments, environment, stdout: stdoutURL, stderr: stderrURL)
    }

    /// Everything the process wrote to standard output so far.
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    /// Everything the process wrote to standard error so far.
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    /// Whether it still runs.
    public var isRunning: Bool { process.isRunning }

    /// The first complete line of standard output, waiting at most `timeout` seconds for it.
    public func firstLine(timeout: TimeInterval = 30) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = stdout
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw ExternalCommand.Failure(description: "no output line within \(timeout) s; stderr: \(stderr)")
    }

    /// Resident memory now and at its peak, in bytes, from `/proc` (Linux), or `nil` where unavailable.
    public func residentMemory() -> (current: Int64, peak: Int64)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kilobytes(_ field: String) -> Int64? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else {
                return nil
            }
            return line.split(separator: " ").compactMap { Int64($0) }.first
        }
        guard let current = kilobytes("VmRSS"), let peak = kilobytes("VmHWM") else { return nil }
        return (current * 1024, peak * 1024)
    }

    /// Sends `signal` (SIGTERM, SIGINT, SIGKILL).
    public func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Waits at most `timeout` seconds for the process to exit; its exit status, or `nil` if it still runs.
    public func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Ends the process (SIGKILL if it still runs) and removes its output files.
    public func stop() {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    deinit { stop() }
}
