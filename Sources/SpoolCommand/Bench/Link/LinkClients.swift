import Foundation
import SpoolTesting

/// The three ways a client reaches the origin across one emulated link, for one run: directly, through
/// `spool serve`, and through the nginx slice proxy. Each proxy starts with an empty cache.
final class LinkClients {
    let link: LinkEmulator
    let spool: SpoolServer
    let slice: NginxSliceProxy
    /// The direct player's client: its connections, TLS sessions and HTTP/2 connection last for the run, as a
    /// player's do for a session.
    let direct: PlayerHTTPClient

    init(rig: BenchRig, profile: LinkProfile, spoolArguments: [String] = []) throws {
        link = try LinkEmulator(upstreamPort: rig.origin.port, profile: profile, scheme: rig.originKind.scheme)
        spool = try SpoolServer(arguments: spoolArguments + rig.trustRoots.flatMap { ["--ca-file", $0.path] })
        slice = try NginxSliceProxy(origin: link.baseURL, executable: rig.tools.nginx)
        direct = PlayerHTTPClient(trustRoots: rig.trustRoots)
    }

    deinit { stop() }

    func stop() {
        direct.shutdown()
        spool.stop()
        slice.stop()
        link.stop()
    }

    /// Where each client reads `path?query` (a distinct query is a distinct, empty entry in both proxies).
    enum Way: String, CaseIterable { case direct, spool, slice }

    /// The client of `way`: the player's own for direct reads; for the proxies, a raw client on loopback
    /// (plain HTTP, a connection per request, which costs nothing there).
    func reader(_ way: Way) -> any RangeReading {
        switch way {
        case .direct: direct
        case .spool: RangeReader(port: spool.port)
        case .slice: RangeReader(port: slice.port)
        }
    }

    /// The URL of `path` on the origin, across the link: directly or through a proxy.
    func url(_ way: Way, path: String) throws -> URL {
        switch way {
        case .direct: return link.url(for: path)
        case .spool: return try spool.url(for: link.url(for: path))
        case .slice: return URL(string: "http://127.0.0.1:\(slice.port)\(path)")!
        }
    }

    /// The URL of `file` for `way`'s measurement `query`, which names the way too: the origin's log tells each
    /// client's requests apart (`originPath`).
    func url(_ way: Way, _ file: BenchRig.File, query: String) throws -> URL {
        try url(way, path: Self.originPath(way, file, query: query))
    }

    /// The request target of `way`'s measurement `query` of `file` as the origin logs it.
    static func originPath(_ way: Way, _ file: BenchRig.File, query: String) -> String {
        "/" + file.rawValue + "?" + query + "-" + way.rawValue
    }

    /// Bytes that entered the link from the origin (in flight included), once the count has been still for
    /// `quiet` seconds: a proxy may be finishing requests its client abandoned.
    func linkBytes(quiet: TimeInterval = 0.5) -> Int64 {
        settledCount(quiet: quiet) { link.counters.bytesFromUpstream }
    }
}
