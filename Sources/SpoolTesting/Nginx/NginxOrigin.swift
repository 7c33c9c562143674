import Foundation

/// A real nginx serving a directory on 127.0.0.1, as a reference origin for comparisons.
///
/// Runs the system nginx as a child process with a private prefix directory (config, logs,
/// temp files), so several can run at once and nothing outside the prefix is touched.
///
/// A path under `/moved/` answers `302` to the same path without that prefix (a CDN sending a player
/// elsewhere): `/moved/hls/index.m3u8` redirects to `/hls/index.m3u8`.
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
    ///
    /// With `tls`, nginx speaks HTTPS (and HTTP/2 if asked) with the certificate of `tls.authority`, and the
    /// URLs are `https://127.0.0.1:PORT/…`.
    ///
    /// `sendBufferBytes` fixes each connection's kernel send buffer. Behind an emulated link it stands for
    /// what a real server's kernel sizes for a real path (about two bandwidth-delay products): on loopback
    /// autotuning grows it to megabytes, which an HTTP/2 client that resets a stream still has to receive
    /// across the link (an HTTP/1.1 client closes the connection and they are dropped).
    ///
    /// With `logsDebug`, `errorLog()` holds nginx's debug lines too, such as the HTTP/2 settings and window
    /// updates a client sent (Debian's nginx is built `--with-debug`).
    public init(
        serving directory: URL, executable: URL = NginxOrigin.defaultExecutable, tls: NginxTLS? = nil,
        sendBufferBytes: Int? = nil, logsDebug: Bool = false
    ) throws {
        let prefix = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-nginx-\(UUID().uuidString)", isDirectory: true)
        let root = directory.standardizedFileURL
        let (child, port) = try NginxProcess.launch(
            executable: executable, prefix: prefix, errorLog: NginxConfig(prefix: prefix, root: root, port: 0).errorLog
        ) { port in
            let config = NginxConfig(
                prefix: prefix, root: root, port: port, tls: tls, sendBufferBytes: sendBufferBytes,
                logsDebug: logsDebug)
            try config.write()
            return config.file
        }
        self.port = port
        config = NginxConfig(
            prefix: prefix, root: root, port: port, tls: tls, sendBufferBytes: sendBufferBytes, logsDebug: logsDebug)
        process = Locked(child)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: config.prefix)
    }

    /// The master process's id (its worker is its child), while nginx runs.
    public var processIdentifier: Int32? {
        process.withLock { $0?.isRunning == true ? $0?.processIdentifier : nil }
    }

    /// `http://127.0.0.1:PORT`, or `https://…` when it speaks TLS.
    public var baseURL: URL { URL(string: "\(scheme)://127.0.0.1:\(port)")! }

    /// The URL of `relativePath` (relative to the served directory) on this server.
    public func url(for relativePath: String) -> URL {
        let absolute = relativePath.hasPrefix("/") ? relativePath : "/" + relativePath
        return URL(string: "\(scheme)://127.0.0.1:\(port)\(absolute)")!
    }

    private var scheme: String { config.tls == nil ? "http" : "https" }

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

    /// The error log so far: warnings, and with `logsDebug` nginx's debug lines.
    public func errorLog() throws -> String {
        guard FileManager.default.fileExists(atPath: config.errorLog.path) else { return "" }
        return try String(contentsOf: config.errorLog, encoding: .utf8)
    }

    /// Sum of `$body_bytes_sent` over the access log.
    public func totalBodyBytesSent() throws -> Int64 {
        try accessLog().reduce(0) { $0 + $1.bodyBytesSent }
    }

    /// Terminates nginx and waits for it to exit. Idempotent; the logs stay readable until
    /// this object is released.
    public func stop() {
        NginxProcess.stop(process)
    }
}
