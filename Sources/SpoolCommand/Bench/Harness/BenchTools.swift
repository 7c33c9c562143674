import Foundation
import SpoolTesting

/// The programs `spool bench run` drives: nginx (the references), curl (single transfers and first-byte
/// times), wrk (concurrent load), ffmpeg (a real demuxer as the client).
struct BenchTools: Sendable {
    let nginx: URL
    let curl: ExternalCommand
    let wrk: ExternalCommand
    let ffmpeg: ExternalCommand

    /// Finds every tool, or fails naming the missing ones and the Debian packages that provide them.
    static func find() throws -> BenchTools {
        let nginx =
            [NginxOrigin.defaultExecutable.path, "/usr/bin/nginx", "/usr/local/sbin/nginx"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? ExternalCommand(named: "nginx")?.executable.path
        let curl = ExternalCommand(named: "curl")
        let wrk = ExternalCommand(named: "wrk")
        let ffmpeg = ExternalCommand(named: "ffmpeg")
        let missing = [("nginx", nginx != nil), ("curl", curl != nil), ("wrk", wrk != nil), ("ffmpeg", ffmpeg != nil)]
            .filter { !$0.1 }.map(\.0)
        guard let nginx, let curl, let wrk, let ffmpeg else {
            throw CommandFailure(
                message: "missing \(missing.joined(separator: ", ")); on Debian or Ubuntu: "
                    + "sudo apt-get install -y \(missing.joined(separator: " "))")
        }
        let tools = BenchTools(nginx: URL(fileURLWithPath: nginx), curl: curl, wrk: wrk, ffmpeg: ffmpeg)
        // The reference proxy needs ngx_http_slice_module; Debian's nginx packages include it.
        let version = try ExternalCommand(executable: tools.nginx).run(["-V"], timeout: 10)
        guard version.stderr.contains("http_slice_module") || version.stdoutText.contains("http_slice_module") else {
            throw CommandFailure(
                message: "\(nginx) was built without the slice module; install Debian's nginx "
                    + "(sudo apt-get install -y nginx)")
        }
        return tools
    }
}
