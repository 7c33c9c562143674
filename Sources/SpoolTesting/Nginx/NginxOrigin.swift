#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A real nginx serving a directory on 127.0.0.1, as a reference origin for comparisons.
///
/// Runs the system nginx as a child process with a private prefix directory (config, logs,
/// temp files), so several can run at once and nothing outside the prefix is touched.
public final class NginxOrigin: Sendable {
    /// Why an `NginxOrigin` could not be started or read.
    public enum Error: Swift.Error, CustomStringConvertible {
        /// No nginx executable at the expected path.
        case notInstalled
        /// nginx did not start accepting connections; carries its error log.
        case failedToStart(String)

        /// A readable explanation.
        public var description: String {
            switch self {
            case .notInstalled: return "nginx is not installed at \(NginxOrigin.defaultExecutable.path)"
            case .failedToStart(let log): return "nginx failed to start: \(log)"
            }
        }
    }

    /// Where Debian installs nginx.
    public static let defaultExecutable = URL(fileURLWithPath: "/usr/sbin/nginx")

    /// The port nginx listens on.
    public let port: Int
    private let config: NginxConfig
    private let process: Locked<Process?>

    /// Starts nginx serving `directory`, retrying with a new port if the chosen one was taken
    /// between probing and nginx binding it; returns once nginx accepts connections.
    public init(serving directory: URL, executable: URL = NginxOrigin.defaultExecutable) throws {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else { throw Error.notInstalled }
        let prefix = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-nginx-\(UUID().uuidString)", isDirectory: true)
        var lastLog = ""
        for _ in 0..<5 {
            // Probe a free port by binding 0; nginx then binds it after we release it.
            let (fd, port) = try POSIXSocket.listenOnLoopback()
            POSIXSocket.closeDescriptor(fd)
            let config = NginxConfig(prefix: prefix, root: directory.standardizedFileURL, port: port)
            try config.write()
            let child = Process()
            child.executableURL = executable
            child.arguments = [
                "-p", prefix.path + "/", "-c", config.file.path, "-e", config.errorLog.path, "-g", "daemon off;",
            ]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            if Self.waitUntilAccepting(child, port: port, timeout: 5) {
                self.port = port
                self.config = config
                self.process = Locked(child)
                return
            }
            Self.terminate(child)
            lastLog = (try? String(contentsOf: config.errorLog, encoding: .utf8)) ?? "(no error log)"
        }
        try? FileManager.default.removeItem(at: prefix)
        throw Error.failedToStart(lastLog)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: config.prefix)
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The URL of `relativePath` (relative to the served directory) on this server.
    public func url(for relativePath: String) -> URL {
        let absolute = relativePath.hasPrefix("/") ? relativePath : "/" + relativePath
        return URL(string: "http://127.0.0.1:\(port)\(absolute)")!
    }

    /// Every access-log entry so far. nginx logs a request just after finishing its response,
    /// so a client may see the response a moment before the entry appears; see
    /// `accessLog(waitingForEntries:timeout:)`.
    public func accessLog() throws -> [NginxLogEntry] {
        guard FileManager.default.fileExists(atPath: config.accessLog.path) else { return [] }
        let text = try String(contentsOf: config.accessLog, encoding: .utf8)
        return text.split(separator: "\n").compactMap(NginxLogEntry.init(line:))
    }

    /// The access log once it holds at least `count` entries, or as it is after `timeout`.
    public func accessLog(waitingForEntries count: Int, timeout: TimeInterval = 2) throws -> [NginxLogEntry] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let entries = try accessLog()
            if entries.count >= count || Date() >= deadline { return entries }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    /// Sum of `$body_bytes_sent` over the access log.
    public func totalBodyBytesSent() throws -> Int64 {
        try accessLog().reduce(0) { $0 + $1.bodyBytesSent }
    }

    /// Terminates nginx and waits for it to exit. Idempotent; the logs stay readable until
    /// this object is released.
    public func stop() {
        let child = process.withLock { process -> Process? in
            defer { process = nil }
            return process
        }
        if let child { Self.terminate(child) }
    }

    private static func waitUntilAccepting(_ child: Process, port: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard child.isRunning else { return false }
            // Someone else could own the port; only trust the connect if nginx is still alive.
            if POSIXSocket.canConnect(port: port) {
                Thread.sleep(forTimeInterval: 0.02)
                return child.isRunning
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// SIGTERM (nginx's fast shutdown), then SIGKILL if it lingers beyond ~5 s.
    private static func terminate(_ child: Process) {
        guard child.isRunning else { return }
        child.terminate()
        let deadline = Date().addingTimeInterval(5)
        while child.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        if child.isRunning {
            kill(child.processIdentifier, SIGKILL)
        }
        child.waitUntilExit()
    }
}
