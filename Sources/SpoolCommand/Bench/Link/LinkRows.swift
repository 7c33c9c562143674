import Foundation
import SpoolTesting

/// The figures of `LinkScenario`, gathered run by run, and the table rows they make.
struct LinkRows {
    private var first = Figures(), mib1 = Figures(), mib4 = Figures(), seek = Figures(), throughput = Figures()
    private var frameFirst = Figures(), frameEnd = Figures(), sessionWall = Figures(), sessionTraffic = Figures()
    private var hls = Figures()
    var replayTraffic: [Double] = []
    var warmHLS: [Double] = []
    var warmFirst: [Double] = []
    var warmMiB: [Double] = []
    var warmFrame: [Double] = []
    var connections: [Double] = []
    private var failures: [LinkClients.Way: Int] = [:]
    /// What the origin paid for each row's measurements, by row id.
    private var originCosts: [String: OriginCost] = [:]
    private var failureTexts: [String] = []

    /// A measurement of `way` failed (over a link with faults).
    mutating func failed(_ way: LinkClients.Way, _ error: any Error) {
        failures[way, default: 0] += 1
        failureTexts.append("\(way): \(error)")
    }

    /// One figure per run for each way of reaching the origin.
    private struct Figures {
        var direct: [Double] = []
        var spool: [Double] = []
        var slice: [Double] = []

        /// A figure that could not be measured (a mark the read never reached) is left out.
        mutating func append(_ way: LinkClients.Way, _ figure: Double?) {
            guard let figure else { return }
            switch way {
            case .direct: direct.append(figure)
            case .spool: spool.append(figure)
            case .slice: slice.append(figure)
            }
        }
    }

    mutating func record(_ way: LinkClients.Way, first: Double?, mib1: Double?, mib4: Double?) {
        self.first.append(way, first)
        self.mib1.append(way, mib1)
        self.mib4.append(way, mib4)
    }

    mutating func record(_ way: LinkClients.Way, seek: Double?) { self.seek.append(way, seek) }
    mutating func record(_ way: LinkClients.Way, throughput: Double) { self.throughput.append(way, throughput) }

    mutating func record(_ way: LinkClients.Way, frameFirst: Double, frameEnd: Double) {
        self.frameFirst.append(way, frameFirst)
        self.frameEnd.append(way, frameEnd)
    }

    mutating func record(_ way: LinkClients.Way, hls: Double) { self.hls.append(way, hls) }

    /// What one run's measurement behind `rows` cost the origin through `way`.
    mutating func record(_ way: LinkClients.Way, _ count: OriginRequestCount, rows: [String]) {
        for id in rows {
            switch way {
            case .direct: originCosts[id, default: OriginCost()].reference.append(count)
            case .spool: originCosts[id, default: OriginCost()].spool.append(count)
            case .slice: originCosts[id, default: OriginCost()].slice.append(count)
            }
        }
    }

    mutating func record(_ way: LinkClients.Way, sessionWall: Double, sessionTraffic: Double) {
        self.sessionWall.append(way, sessionWall)
        self.sessionTraffic.append(way, sessionTraffic)
    }

    func finished(profile: LinkProfile, plan: LinkBenchPlan, fileBytes: Int64) -> [BenchRow] {
        func row(
            _ id: String, _ title: String, _ unit: BenchUnit, higher: Bool = false, _ figures: Figures,
            goal: BenchGoal?
        ) -> BenchRow {
            var row = BenchRow(
                id: id, title: title, unit: unit, higherIsBetter: higher, spool: figures.spool,
                referenceName: "direct", reference: figures.direct, goal: goal)
            if let slice = BenchRow.median(figures.slice) {
                row.notes.append("nginx slice proxy: \(unit.format(slice))")
            }
            return row
        }
        func warm(
            _ id: String, _ title: String, _ unit: BenchUnit, _ spool: [Double], reference: [Double], goal: BenchGoal?
        ) -> BenchRow {
            BenchRow(
                id: id, title: title, unit: unit, higherIsBetter: false, spool: spool, referenceName: "direct (cold)",
                reference: reference, goal: goal)
        }
        let file = ByteCountText.format(fileBytes)
        var rows = [
            row("1", "cold first byte: bytes=0-", .seconds, first, goal: .ratio(atMost: 1.1)),
            row("2a", "cold time to 1 MiB of bytes=0-", .seconds, mib1, goal: .ratio(atMost: 1.1)),
            row("2b", "cold time to 4 MiB of bytes=0-", .seconds, mib4, goal: .ratio(atMost: 1.1)),
            row("3", "cold seek: bytes=S- at 60 %, time to 1 MiB", .seconds, seek, goal: .ratio(atMost: 1.1)),
            row(
                "4a", "ffmpeg first decoded frame, MP4 moov first, cold", .seconds, frameFirst,
                goal: .ratio(atMost: 1.1)),
            row(
                "4b", "ffmpeg first decoded frame, MP4 moov at end, cold", .seconds, frameEnd, goal: .ratio(atMost: 1.1)
            ),
            row(
                "5", "full read of \(file), cold", .bytesPerSecond, higher: true, throughput,
                goal: .ratio(atLeast: 0.95)),
            row(
                "6a", "\(plan.seeks)-seek player session: wall time, cold", .seconds, sessionWall,
                goal: .ratio(atMost: 1.15)),
            row("6b", "the same session: link bytes ÷ bytes played", .ratio, sessionTraffic, goal: .ratio(atMost: 0.5)),
            BenchRow(
                id: "6c", title: "the session replayed: link bytes ÷ bytes played", unit: .ratio, higherIsBetter: false,
                spool: replayTraffic, goal: .value(atMost: 0)),
            warm("7a", "warm first byte: bytes=0-", .seconds, warmFirst, reference: first.direct, goal: nil),
            warm("7b", "warm time to 1 MiB of bytes=0-", .seconds, warmMiB, reference: mib1.direct, goal: nil),
            warm(
                "7c", "ffmpeg first decoded frame, moov at end, warm", .seconds, warmFrame, reference: frameEnd.direct,
                goal: .ratio(atMost: 0.5)),
        ]
        var failed = BenchRow(
            id: "8", title: "measurements that failed (a read cut short, an error)", unit: .count,
            higherIsBetter: false, spool: [Double(failures[.spool] ?? 0)], referenceName: "direct",
            reference: [Double(failures[.direct] ?? 0)], goal: .value(atMost: 0))
        failed.notes += failureTexts.prefix(5)
        rows.append(failed)
        rows += [
            row(
                "9a", "ffmpeg first decoded frame, HLS (2 s TS segments), cold", .seconds, hls,
                goal: .ratio(atMost: 1.1)),
            warm(
                "9b", "ffmpeg first decoded frame, HLS, warm", .seconds, warmHLS, reference: hls.direct,
                goal: .ratio(atMost: 0.5)),
        ]
        rows[7].notes.append(
            "each read `bytes=N-` cut after \(plan.playedPerRequest.lowerBound / 1024)–"
                + "\(plan.playedPerRequest.upperBound / 1024) KiB, a new connection each for the direct client")
        rows[8].notes.append(
            "bytes that entered the link from the origin, in flight included; the link accepted "
                + String(format: "%.0f", BenchRow.median(connections) ?? 0)
                + " connections per run, all three clients together "
                + "(the direct client opens one per request)")
        rows[7].notes.append("origin requests and connections: Spool's include its replay's (6c)")
        for index in rows.indices { rows[index].originCost = originCosts[rows[index].id] }
        return rows
    }
}
