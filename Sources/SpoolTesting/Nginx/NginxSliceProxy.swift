import Foundation

/// nginx as a caching range proxy in front of an origin: `proxy_cache` with the `slice` module, the standard
/// server-side answer to caching large media by ranges, as a reference for benchmarks.
///
/// Every client range is served from fixed-size slices (1 MiB by default), each fetched from the origin once
/// with `Range: bytes=<slice>` and kept in a cache inside a private prefix directory, so several can run at
/// once and a new instance starts with an empty cache. The access log records the client side, not the
/// origin's: read origin traffic from the origin's own log.
public final class NginxSliceProxy: Sendable {
    /// The port nginx listens on.
    public let port: Int
    /// The slice size in bytes.
    public let sliceSize: Int
    private let prefix: URL
    private let process: Locked<Process?>

    /// Starts nginx proxying to `origin` (`http://127.0.0.1:PORT`, or `https://`: TLS to the origin, sessions
    /// reused, the certificate not verified as nginx's default is) with `sliceSize`-byte slices, retrying
    /// with a new port if the chosen one was taken before nginx bound it; returns once it accepts connections.
    public init(origin: URL, sliceSize: Int = 1 << 20, executable: URL = NginxOrigin.defaultExecutable) throws {
        let prefix = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-nginx-slice-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let upstream = "\(origin.host ?? "127.0.0.1"):\(origin.port ?? 80)"
        let scheme = origin.scheme == "https" ? "https" : "http"
        let (child, port) = try NginxProcess.launch(
            executable: executable, prefix: prefix, errorLog: prefix.appendingPathComponent("error.log")
        ) { port in
            let file = prefix.appendingPathComponent("nginx.conf")
            try Self.configuration(
                prefix: prefix, port: port, scheme: scheme, upstream: upstream, sliceSize: sliceSize
            )
            .write(to: file, atomically: true, encoding: .utf8)
            return file
        }
        self.port = port
        self.sliceSize = sliceSize
        self.prefix = prefix
        process = Locked(child)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: prefix)
    }

    private var accessLogFile: URL { prefix.appendingPathComponent("access.log") }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The URL of `path` (the origin's path) through this proxy.
    public func url(for path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
    }

    /// The last lines of nginx's error log (why a request got `502`, for example).
    public func errorLogTail(lines: Int = 5) -> String {
        let text = (try? String(contentsOf: prefix.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// The client-side access log: what this proxy answered.
    public func accessLog() throws -> [NginxLogEntry] {
        guard FileManager.default.fileExists(atPath: accessLogFile.path) else { return [] }
        return try String(contentsOf: accessLogFile, encoding: .utf8)
            .split(separator: "\n").compactMap(NginxLogEntry.init(line:))
    }

    /// Terminates nginx and waits for it to exit. Idempotent; the cache is removed when this object is released.
    public func stop() {
        NginxProcess.stop(process)
    }

    /// The configuration of nginx's documented slice-caching recipe, with keep-alive connections to the origin
    /// so that the reference does not pay a TCP handshake per slice.
    private static func configuration(prefix: URL, port: Int, scheme: String, upstream: String, sliceSize: Int)
        -> String
    {
        let dir = prefix.path
        // As root the workers would otherwise switch to "nobody", who may not be able to write the prefix.
        let user = geteuid() == 0 ? "user root;\n" : ""
        return """
            \(user)worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events {
                worker_connections 4096;
            }
            http {
                default_type application/octet-stream;
                log_format spool \(NginxLogEntry.logFormat);
                access_log \(dir)/access.log spool;
                client_body_temp_path \(dir)/tmp/body;
                proxy_temp_path \(dir)/tmp/proxy;
                fastcgi_temp_path \(dir)/tmp/fastcgi;
                uwsgi_temp_path \(dir)/tmp/uwsgi;
                scgi_temp_path \(dir)/tmp/scgi;
                proxy_cache_path \(dir)/cache levels=1:2 keys_zone=slices:16m max_size=256g inactive=1d \
                use_temp_path=off;
                sendfile on;
                tcp_nopush on;
                keepalive_timeout 65;
                keepalive_requests 100000;
                upstream origin {
                    server \(upstream);
                    keepalive 32;
                }
                server {
                    listen 127.0.0.1:\(port);
                    server_name localhost;
                    location / {
                        slice \(sliceSize);
                        proxy_cache slices;
                        proxy_cache_key $uri$is_args$args$slice_range;
                        proxy_set_header Range $slice_range;
                        proxy_cache_valid 200 206 1d;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        # nginx 1.22's default leaves TLS 1.3 out.
                        proxy_ssl_protocols TLSv1.2 TLSv1.3;
                        proxy_pass \(scheme)://origin;
                    }
                }
            }

            """
    }
}
