import Foundation
import SpoolProxy
import SpoolTesting

/// `spool serve` as its own process with its own empty cache directory, the way a user runs it; removed with
/// its cache on `stop()`.
final class SpoolServer {
    let process: BackgroundProcess
    let port: Int
    let cacheDirectory: URL
    private let mapping: ProxyURLMapping
    private var stopped = false

    /// Starts this very executable as `spool serve` on a free loopback port, with `arguments` added.
    init(arguments extra: [String] = []) throws {
        cacheDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-bench-serve-\(UUID().uuidString)", isDirectory: true)
        process = try BackgroundProcess(
            executable: try Self.executable(),
            arguments: ["serve", "--port", "0", "--cache", cacheDirectory.path] + extra)
        let line = try process.firstLine(timeout: 30)
        guard let url = URL(string: line), let port = url.port else {
            throw CommandFailure(message: "spool serve printed '\(line)', not its URL; stderr: \(process.stderr)")
        }
        self.port = port
        // serve wrote its serve.json, with the key its URLs are signed with, before it printed its URL.
        mapping = try ProxyURL.servedMapping(in: cacheDirectory)
    }

    /// The URL that reads `origin` through this proxy.
    func url(for origin: URL) throws -> URL {
        try mapping.proxyURL(for: origin)
    }

    /// Peak resident memory so far (VmHWM), in bytes.
    var peakMemory: Int64? { process.residentMemory()?.peak }

    /// SIGTERM (the cache writes its index), then removes the cache directory.
    func stop() {
        // Once only: a second signal could reach another process that was given the same pid.
        guard !stopped else { return }
        stopped = true
        process.send(SIGTERM)
        _ = process.waitForExit(timeout: 10)
        process.stop()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }

    deinit { stop() }

    /// The running executable: the benchmark measures the build it is part of (release or debug).
    private static func executable() throws -> URL {
        #if os(Linux)
        let selfExe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if FileManager.default.isExecutableFile(atPath: selfExe.path) { return selfExe }
        #endif
        if let main = Bundle.main.executableURL { return main }
        return try SpoolExecutable.url()
    }
}
