import Foundation
import SpoolTesting

/// `spool bench run --link PROFILE`: cold start, seeking, a full read, ffmpeg and a player session across an
/// emulated link, Spool side by side with a client reading the origin directly across the same link (and
/// the nginx slice proxy, in the notes), each run with empty caches.
struct LinkScenario {
    let rig: BenchRig
    let plan: LinkBenchPlan
    let profile: LinkProfile
    /// Added to `spool serve`'s arguments (the read-ahead knob, for the trade-off curve).
    var spoolArguments: [String] = []

    private static let mebibyte: Int64 = 1 << 20

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        var rows = LinkRows()
        for run in 0..<plan.runs {
            progress("\(profile.name): run \(run + 1) of \(plan.runs) (new link, empty caches)")
            // Where the warm reads' entries start in the origin's log.
            var warmFrom = 0
            do {
                let clients = try LinkClients(rig: rig, profile: profile, spoolArguments: spoolArguments)
                defer { clients.stop() }
                for way in LinkClients.Way.allCases {
                    progress("\(profile.name): cold reads \(way)")
                    try tolerated(way, &rows) { try coldReads(clients, way, run: run, into: &$0) }
                }
                for way in [LinkClients.Way.direct, .spool] {
                    progress("\(profile.name): \(plan.seeks)-seek player session \(way)")
                    try tolerated(way, &rows) { try session(clients, way, run: run, into: &$0) }
                }
                warmFrom = try rig.origin.accessLog().count
                progress("\(profile.name): warm reads through Spool")
                try tolerated(.spool, &rows) { try warmReads(clients, run: run, into: &$0) }
                rows.connections.append(Double(clients.link.counters.connectionsAccepted))
            }
            try countOriginRequests(run: run, warmFrom: warmFrom, into: &rows)
        }
        return rows.finished(profile: profile, plan: plan, fileBytes: rig.size(.link))
    }

    /// Runs `body`; over a link with faults a failure is counted (a client without retries fails when its
    /// connection is reset) rather than ending the benchmark.
    private func tolerated(_ way: LinkClients.Way, _ rows: inout LinkRows, _ body: (inout LinkRows) throws -> Void)
        throws
    {
        do {
            try body(&rows)
        } catch  where profile.faults != nil {
            rows.failed(way, error)
        }
    }

    private func coldReads(_ clients: LinkClients, _ way: LinkClients.Way, run: Int, into rows: inout LinkRows) throws {
        let reader = clients.reader(way)
        let start = try reader.get(
            try clients.url(way, .link, query: "start-\(run)"), range: "bytes=0-", limit: 4 * Self.mebibyte,
            marks: [Self.mebibyte, 4 * Self.mebibyte])
        try check(start, way, "bytes=0-", clients)
        rows.record(way, first: start.firstBodyByte, mib1: start.markTimes[0], mib4: start.markTimes[1])

        let offset = rig.size(.link) * 6 / 10
        let seek = try reader.get(
            try clients.url(way, .link, query: "seek-\(run)"), range: "bytes=\(offset)-", limit: Self.mebibyte,
            marks: [Self.mebibyte])
        try check(seek, way, "bytes=\(offset)-", clients)
        rows.record(way, seek: seek.markTimes[0])

        if way != .slice {
            rows.record(
                way, frameFirst: try firstFrame(try clients.url(way, .videoFaststart, query: "cold-\(run)")),
                frameEnd: try firstFrame(try clients.url(way, .video, query: "cold-\(run)")))
            let playlist = try rig.hlsPlaylistPath("cold-\(run)-\(way)")
            rows.record(way, hls: try firstFrame(try clients.url(way, path: playlist)))
        }
        let whole = try reader.get(try clients.url(way, .link, query: "whole-\(run)"), range: nil, limit: nil)
        guard whole.status == 200, whole.bodyBytes == rig.size(.link) else {
            throw CommandFailure(message: "\(way): full read got status \(whole.status), \(whole.bodyBytes) bytes")
        }
        rows.record(way, throughput: Double(whole.bodyBytes) / whole.total)
    }

    private func session(_ clients: LinkClients, _ way: LinkClients.Way, run: Int, into rows: inout LinkRows) throws {
        let session = SeekSession(
            size: rig.size(.link), seeks: plan.seeks, played: plan.playedPerRequest, seed: UInt64(run + 1))
        let target = try clients.url(way, .link, query: "session-\(run)")
        let before = clients.linkBytes()
        let began = DispatchTime.now().uptimeNanoseconds
        let played = try session.play(clients.reader(way), url: target)
        let wall = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        let first = clients.linkBytes()
        rows.record(way, sessionWall: wall, sessionTraffic: Double(first - before) / Double(played))
        if way == .spool {
            _ = try session.play(clients.reader(way), url: target)
            rows.replayTraffic.append(Double(clients.linkBytes() - first) / Double(played))
        }
    }

    private func warmReads(_ clients: LinkClients, run: Int, into rows: inout LinkRows) throws {
        let start = try clients.reader(.spool).get(
            try clients.url(.spool, .link, query: "start-\(run)"), range: "bytes=0-", limit: Self.mebibyte,
            marks: [Self.mebibyte])
        try check(start, .spool, "warm bytes=0-", clients)
        if let first = start.firstBodyByte { rows.warmFirst.append(first) }
        if let mebibyte = start.markTimes[0] { rows.warmMiB.append(mebibyte) }
        rows.warmFrame.append(try firstFrame(try clients.url(.spool, .video, query: "cold-\(run)")))
        rows.warmHLS.append(try firstFrame(try clients.url(.spool, path: try rig.hlsPlaylistPath("cold-\(run)-spool"))))
    }

    /// Counts what each measurement of run `run` cost the origin, from its access log once every client has
    /// stopped: nginx logs a request when it ends, and a proxy's abandoned requests end when it stops at the
    /// latest. The warm reads' entries start at `warmFrom`.
    private func countOriginRequests(run: Int, warmFrom: Int, into rows: inout LinkRows) throws {
        _ = try settledCount(quiet: 0.3) { Int64(try rig.origin.accessLog().count) }
        let log = try rig.origin.accessLog()
        let (cold, warm) = (log.prefix(warmFrom), log.dropFirst(warmFrom))
        for way in LinkClients.Way.allCases {
            func cost(_ entries: ArraySlice<NginxLogEntry>, _ file: BenchRig.File, _ query: String)
                -> OriginRequestCount
            {
                let path = LinkClients.originPath(way, file, query: "\(query)-\(run)")
                return OriginRequestCount(entries) { $0 == path }
            }
            func hls(_ entries: ArraySlice<NginxLogEntry>) -> OriginRequestCount {
                let directory = "/\(BenchRig.hlsDirectory)-cold-\(run)-\(way)/"
                return OriginRequestCount(entries) { $0.hasPrefix(directory) }
            }
            rows.record(way, cost(cold, .link, "start"), rows: ["1", "2a", "2b"])
            rows.record(way, cost(cold, .link, "seek"), rows: ["3"])
            rows.record(way, cost(log[...], .link, "whole"), rows: ["5"])
            if way != .slice {
                rows.record(way, cost(cold, .videoFaststart, "cold"), rows: ["4a"])
                rows.record(way, cost(cold, .video, "cold"), rows: ["4b"])
                rows.record(way, hls(cold), rows: ["9a"])
                rows.record(way, cost(log[...], .link, "session"), rows: ["6a", "6b"])
            }
            if way == .spool {
                rows.record(way, cost(warm, .link, "start"), rows: ["7a", "7b"])
                rows.record(way, cost(warm, .video, "cold"), rows: ["7c"])
                rows.record(way, hls(warm), rows: ["9b"])
            }
        }
    }

    private func check(
        _ transfer: RangeReader.Transfer, _ way: LinkClients.Way, _ what: String, _ clients: LinkClients
    ) throws {
        guard transfer.status == 206 else {
            let log = way == .slice ? "; nginx: " + clients.slice.errorLogTail() : ""
            throw CommandFailure(message: "\(profile.name), \(way), \(what): status \(transfer.status)\(log)")
        }
    }

    /// Wall time of `ffmpeg -i URL -frames:v 1 -f null -`: probe, then the first decoded frame.
    ///
    /// ffmpeg first decodes a frame of the local copy, untimed, so the timed run finds its libraries in memory
    /// through either way. Without that, start-up paged them in from disk: this machine's kernel reclaims
    /// file pages left unused for seconds, and the 20 s between two ffmpeg runs are enough. The page-ins
    /// (6–80 waits in `filemap_fault` per start, `perf` on `sched_switch`) queued behind the cache's own
    /// writes through Spool, and ffmpeg took 0.03–0.8 s longer to connect there than through direct, while its
    /// connection lasted as long through both (`tcpdump`, mobile HTTPS: 0.349 and 0.350 s).
    private func firstFrame(_ url: URL) throws -> Double {
        func decodeFirstFrame(of input: String, timeout: TimeInterval) throws -> ExternalCommand.Output {
            try rig.tools.ffmpeg.run(
                ["-v", "error", "-nostdin", "-i", input, "-frames:v", "1", "-f", "null", "-"], timeout: timeout)
        }
        _ = try decodeFirstFrame(of: rig.localPath(.videoFaststart), timeout: 60)
        let start = DispatchTime.now().uptimeNanoseconds
        let output = try decodeFirstFrame(of: url.absoluteString, timeout: 300)
        guard output.status == 0 else {
            throw CommandFailure(message: "ffmpeg could not decode a frame of \(url.absoluteString): \(output.stderr)")
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
