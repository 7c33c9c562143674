import Foundation

/// A program run to completion with its output captured: curl, ffmpeg, ffprobe, `spool` itself. Output goes
/// through files, not pipes, so a chatty program can never block on a full pipe.
public struct ExternalCommand: Sendable {
    /// What a finished run produced.
    public struct Output: Sendable {
        /// The exit status (or the signal number when killed by one).
        public var status: Int32
        /// Everything written to standard output.
        public var stdout: Data
        /// Everything written to standard error, as text.
        public var stderr: String

        /// Standard output as text.
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Why a command could not be run to completion.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String

        /// A failure described by `description`.
        public init(description: String) {
            self.description = description
        }
    }

    /// The program.
    public var executable: URL
    /// The environment; the test process's own by default.
    public var environment: [String: String]

    /// The program at `executable`.
    public init(executable: URL, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.executable = executable
        self.environment = environment
    }

    /// The program called `name` on `PATH` (and in `/usr/bin`, `/usr/sbin`), or `nil` when not installed.
    public init?(named name: String) {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/sbin", "/bin"]
        guard
            let found =
                directories
                .map({ URL(fileURLWithPath: $0).appendingPathComponent(name) })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
        else { return nil }
        self.init(executable: found)
    }

    /// Runs the program with `arguments`, waiting at most `timeout` seconds (then it is killed and this
    /// throws).
    public func run(_ arguments: [String], timeout: TimeInterval = 120) throws -> Output {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-cmd-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        let process = try Self.launch(executable, arguments, environment, stdout: outURL, stderr: errURL)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure(description: "\(executable.lastPathComponent) \(arguments) did not finish in \(timeout) s")
        }
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: (try? Data(contentsOf: outURL)) ?? Data(),
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    static func launch(
        _ executable: URL, _ arguments: [String], _ environment: [String: String], stdout: URL, stderr: URL
    ) throws -> Process {
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
