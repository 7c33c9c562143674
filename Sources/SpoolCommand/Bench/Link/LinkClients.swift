import Foundation
import SpoolTesting

/// The three ways a client reaches the origin across one emulated link, for one run: directly, through
/// `spool serve`, and through the nginx slice proxy. Each proxy starts with an empty cache.
final class LinkClients {
    let link: LinkEmulator
    let spool: SpoolServer
    let slice: NginxSliceProxy

    init(rig: BenchRig, profile: LinkProfile, spoolArguments: [String] = []) throws {
        link = try LinkEmulator(upstreamPort: rig.origin.port, profile: profile)
        spool = try SpoolServer(arguments: spoolArguments)
        slice = try NginxSliceProxy(origin: link.baseURL, executable: rig.tools.nginx)
    }

    deinit { stop() }

    func stop() {
        spool.stop()
        slice.stop()
        link.stop()
    }

    /// Where each client reads `path?query` (a distinct query is a distinct, empty entry in both proxies).
    enum Way: CaseIterable { case direct, spool, slice }

    func reader(_ way: Way) -> RangeReader {
        switch way {
        case .direct: RangeReader(port: link.port)
        case .spool: RangeReader(port: spool.port)
        case .slice: RangeReader(port: slice.port)
        }
    }

    func target(_ way: Way, _ file: BenchRig.File, query: String) throws -> String {
        let path = "/" + file.rawValue + "?" + query
        switch way {
        case .direct, .slice: return path
        case .spool: return RangeReader.target(of: try spool.url(for: link.url(for: path)))
        }
    }

    /// The URL of `path` on the origin, across the link: directly or through Spool.
    func url(_ way: Way, path: String) throws -> URL {
        switch way {
        case .direct: return link.url(for: path)
        case .spool: return try spool.url(for: link.url(for: path))
        case .slice: return URL(string: "http://127.0.0.1:\(slice.port)\(path)")!
        }
    }

    func url(_ way: Way, _ file: BenchRig.File, query: String) throws -> URL {
        let path = "/" + file.rawValue + "?" + query
        switch way {
        case .direct: return link.url(for: path)
        case .spool: return try spool.url(for: link.url(for: path))
        case .slice: return URL(string: "http://127.0.0.1:\(slice.port)\(path)")!
        }
    }

    /// Bytes that entered the link from the origin (in flight included), once the count has been still for
    /// `quiet` seconds: a proxy may be finishing requests its client abandoned.
    func linkBytes(quiet: TimeInterval = 0.5) -> Int64 {
        settledCount(quiet: quiet) { link.counters.bytesFromUpstream }
    }
}
