import Foundation
import SpoolTesting

/// Scenario 5: what a player session with many seeks costs the origin, through `spool serve` and through the
/// nginx slice proxy (1 MiB slices): origin body bytes ÷ distinct bytes the player received, on the first
/// play and on a replay of the same requests. Every run starts both proxies anew with empty caches.
struct OriginTrafficScenario {
    let rig: BenchRig

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        let plan = rig.plan
        var first = BenchRow(
            id: "5a", title: "origin bytes ÷ bytes played: \(plan.seeks)-seek session, first play", unit: .ratio,
            higherIsBetter: false, referenceName: "nginx slice proxy", goal: .value(atMost: 1.1))
        var replay = BenchRow(
            id: "5b", title: "origin bytes ÷ bytes played: the same session replayed", unit: .ratio,
            higherIsBetter: false, referenceName: "nginx slice proxy", goal: .value(atMost: 0))
        var played: [Double] = []
        for run in 0..<plan.runs {
            progress(
                "player session (\(plan.seeks) seeks), run \(run + 1) of \(plan.runs) (fresh proxies, empty caches)")
            let session = SeekSession(
                size: rig.size(.session), seeks: plan.seeks, played: plan.playedPerRequest, seed: UInt64(run + 1))
            let server = try SpoolServer()
            defer { server.stop() }
            let proxy = try NginxSliceProxy(origin: rig.origin.baseURL, executable: rig.tools.nginx)
            defer { proxy.stop() }
            let spoolTarget = try server.url(for: rig.originURL(.session))
            let sliceTarget = proxy.url(for: "/" + BenchRig.File.session.rawValue)
            // Spool, then nginx: one at a time, so the origin log says whose bytes are whose.
            let (spoolFirst, spoolReplay, unique) = try measure(session, RangeReader(port: server.port), spoolTarget)
            let (sliceFirst, sliceReplay, _) = try measure(session, RangeReader(port: proxy.port), sliceTarget)
            first.spool.append(spoolFirst)
            first.reference.append(sliceFirst)
            replay.spool.append(spoolReplay)
            replay.reference.append(sliceReplay)
            played.append(Double(unique))
        }
        let reads = plan.playedPerRequest
        first.notes.append(
            "each request is `bytes=N-` cut after \(reads.lowerBound / 1024)–\(reads.upperBound / 1024) KiB; "
                + String(format: "%.1f MiB played", (BenchRow.median(played) ?? 0) / 1_048_576)
                + " of a \(ByteCountText.format(rig.size(.session))) file; origin bytes from the origin's access log")
        return [first, replay]
    }

    /// Plays `session` twice through the proxy at `reader`; the origin bytes of each play ÷ the bytes played.
    private func measure(_ session: SeekSession, _ reader: RangeReader, _ target: URL) throws -> (
        Double, Double, Int64
    ) {
        let start = try rig.originBytes(.session, quiet: 0.3)
        let unique = try session.play(reader, url: target)
        let afterFirst = try rig.originBytes(.session, quiet: 0.3)
        _ = try session.play(reader, url: target)
        let afterReplay = try rig.originBytes(.session, quiet: 0.3)
        return (Double(afterFirst - start) / Double(unique), Double(afterReplay - afterFirst) / Double(unique), unique)
    }
}
