import Foundation
import SpoolTesting

/// Scenario 3d/3e: the cold first byte and time to 1 MiB of an uncached file through `spool serve` while
/// every core is kept busy by the bench's own load (`CPULoad`), against nginx direct under the same load.
/// A quiet machine hides the cold path's hand-offs: each one waits for a core.
struct LoadedColdScenario {
    let rig: BenchRig

    private static let mebibyte: Int64 = 1 << 20

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        var first = BenchRow(
            id: "3d", title: "first byte, cold, every core busy: bytes=0- of an uncached file", unit: .seconds,
            higherIsBetter: false, referenceName: "nginx direct (busy)", goal: .ratio(atMost: 1.25))
        var mebibyte = BenchRow(
            id: "3e", title: "time to 1 MiB, cold, every core busy", unit: .seconds, higherIsBetter: false,
            referenceName: "nginx direct (busy)", goal: .ratio(atMost: 1.25))
        var spinners = 0
        for run in 0..<rig.plan.runs {
            progress("cold reads with every core busy, run \(run + 1) of \(rig.plan.runs) (a fresh proxy, empty cache)")
            let server = try SpoolServer()
            defer { server.stop() }
            let load = try CPULoad()
            defer { load.stop() }
            spinners = load.count
            var spool: [(Double, Double)] = []
            var direct: [(Double, Double)] = []
            for sample in 0..<rig.plan.firstByteSamples {
                let url = try server.url(for: rig.originURL(.firstByte, query: "busy=\(run)-\(sample)"))
                spool.append(try Self.read(url))
                direct.append(try Self.read(rig.directURL(.firstByte)))
            }
            first.spool.append(BenchRow.median(spool.map(\.0)) ?? 0)
            first.reference.append(BenchRow.median(direct.map(\.0)) ?? 0)
            mebibyte.spool.append(BenchRow.median(spool.map(\.1)) ?? 0)
            mebibyte.reference.append(BenchRow.median(direct.map(\.1)) ?? 0)
        }
        first.notes.append(
            "\(spinners) processes spinning at normal priority beside the client, the proxy and the origin; "
                + "a new connection and a new entry per sample; raw-socket client")
        return [first, mebibyte]
    }

    /// Seconds to the first body byte and to 1 MiB of `bytes=0-` read from `url`, hanging up after 1 MiB.
    private static func read(_ url: URL) throws -> (Double, Double) {
        let transfer = try RangeReader(port: url.port ?? 80).get(
            url, range: "bytes=0-", limit: mebibyte, marks: [mebibyte])
        guard transfer.status == 206, let first = transfer.firstBodyByte, let whole = transfer.markTimes[0] else {
            throw CommandFailure(
                message: "\(url.absoluteString): status \(transfer.status), \(transfer.bodyBytes) bytes under load")
        }
        return (first, whole)
    }
}
