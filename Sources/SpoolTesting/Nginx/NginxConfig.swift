import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The nginx.conf an `NginxOrigin` runs with: everything nginx writes stays inside `prefix`.
struct NginxConfig {
    let prefix: URL
    let root: URL
    let port: Int
    var tls: NginxTLS? = nil
    /// The kernel send buffer of every connection (`listen … sndbuf=`), `nil` for the kernel's autotuning.
    var sendBufferBytes: Int? = nil
    /// Whether the error log records nginx's debug lines too (the HTTP/2 frames a client sent, among others).
    var logsDebug = false

    var accessLog: URL { prefix.appendingPathComponent("access.log") }
    var errorLog: URL { prefix.appendingPathComponent("error.log") }
    var file: URL { prefix.appendingPathComponent("nginx.conf") }

    var text: String {
        let dir = prefix.path
        // A master process is required, not just tidy: a child spawned from a Swift
        // concurrency thread inherits a mask blocking SIGTERM, and only nginx's master
        // (sigsuspend) and workers (which reset the mask) will still receive it.
        // As root the workers would otherwise switch to "nobody", who may not be able to read
        // the served directory.
        let user = geteuid() == 0 ? "user root;\n" : ""
        // No `tcp_nopush` (nginx's default): with it, a keep-alive response one to two TCP segments long waits
        // about 40 ms for its last bytes (as long as a delayed ACK). Loopback's segments are 64 KiB, so that
        // hit range requests of 64–128 KiB, sizes a cold read asks for while it ramps up (eight 70 KB ranges on
        // one connection: five took 40–48 ms with it, none without); on a real network's 1.4 KiB segments no
        // request is that small, so the stall was the test rig's, not the origin's.
        let mimeTypes =
            FileManager.default.fileExists(atPath: "/etc/nginx/mime.types")
            ? "    include /etc/nginx/mime.types;\n" : ""
        return """
            \(user)worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(errorLog.path) \(logsDebug ? "debug" : "warn");
            events {
                worker_connections 1024;
            }
            http {
            \(mimeTypes)    default_type application/octet-stream;
                log_format spool \(NginxLogEntry.logFormat);
                access_log \(accessLog.path) spool;
                client_body_temp_path \(dir)/tmp/body;
                proxy_temp_path \(dir)/tmp/proxy;
                fastcgi_temp_path \(dir)/tmp/fastcgi;
                uwsgi_temp_path \(dir)/tmp/uwsgi;
                scgi_temp_path \(dir)/tmp/scgi;
                sendfile on;
                etag on;
                keepalive_timeout 65;
                keepalive_requests 100000;
                server {
                    listen 127.0.0.1:\(port)\(listenOptions);
            \(tlsDirectives)        server_name localhost;
                    root \(root.path);
                    location / {
                    }
                    # A relative Location: nginx would otherwise name `server_name` (localhost), not 127.0.0.1.
                    absolute_redirect off;
                    location /moved/ {
                        rewrite ^/moved/(.*)$ /$1 redirect;
                    }
                }
            }

            """
    }

    /// ` ssl` and ` http2` after the listen address, as the TLS settings ask, and the send buffer.
    private var listenOptions: String {
        let buffer = sendBufferBytes.map { " sndbuf=\($0)" } ?? ""
        guard let tls else { return buffer }
        return (tls.http2 ? " ssl http2" : " ssl") + buffer
    }

    /// The certificate, the one TLS version, and a session cache and tickets (resumption, as CDNs offer it).
    private var tlsDirectives: String {
        guard let tls else { return "" }
        return [
            "ssl_certificate \(tls.authority.serverCertificateFile.path);",
            "ssl_certificate_key \(tls.authority.serverKeyFile.path);",
            "ssl_protocols \(tls.version.rawValue);",
            "ssl_session_cache shared:spool:1m;",
            "ssl_session_tickets on;",
        ].map { "        " + $0 + "\n" }.joined()
    }

    func write() throws {
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("tmp"), withIntermediateDirectories: true
        )
        try text.write(to: file, atomically: true, encoding: .utf8)
    }
}
