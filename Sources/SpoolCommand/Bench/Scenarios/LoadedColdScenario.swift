import Foundation
import SpoolTesting

/// Scenarios 3d–3g: the cold first byte and time to 1 MiB of an uncached file through `spool serve` while
/// every core is kept busy by the bench's own load (`CPULoad`), against nginx direct (3d, 3e) and against the
/// nginx slice proxy (3f, 3g), each under the same load. A quiet machine hides the cold path's hand-offs: each
/// one waits for a core. The slice proxy shows what a caching proxy in front of the same origin gets there:
/// it needs its own wake-ups and the origin's before a first byte, where nginx direct needs one.
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
        var firstSlice = BenchRow(
            id: "3f", title: "first byte, cold, every core busy, against the caching reference", unit: .seconds,
            higherIsBetter: false, referenceName: "nginx slice proxy (cold, busy)")
        var mebibyteSlice = BenchRow(
            id: "3g", title: "time to 1 MiB, cold, every core busy, against the caching reference", unit: .seconds,
            higherIsBetter: false, referenceName: "nginx slice proxy (cold, busy)")
        var spinners = 0
        for run in 0..<rig.plan.runs {
            progress(
                "cold reads with every core busy, run \(run + 1) of \(rig.plan.runs) (fresh proxies, empty caches)")
            let server = try SpoolServer()
            defer { server.stop() }
            let proxy = try NginxSliceProxy(origin: rig.origin.baseURL, executable: rig.tools.nginx)
            defer { proxy.stop() }
            let load = try CPULoad()
            defer { load.stop() }
            spinners = load.count
            var spool: [(Double, Double)] = []
            var slice: [(Double, Double)] = []
            var direct: [(Double, Double)] = []
            for sample in 0..<rig.plan.firstByteSamples {
                // A new query string is a new entry in both proxies; nginx direct ignores it.
                let origin = rig.originURL(.firstByte, query: "busy=\(run)-\(sample)")
                spool.append(try Self.read(try server.url(for: origin)))
                slice.append(try Self.read(proxy.url(for: RangeReader.target(of: origin))))
                direct.append(try Self.read(rig.directURL(.firstByte)))
            }
            Self.add(spool, direct, to: &first, &mebibyte)
            Self.add(spool, slice, to: &firstSlice, &mebibyteSlice)
        }
        first.notes.append(
            "\(spinners) processes spinning at normal priority beside the client, the proxies and the origin; "
                + "a new connection and a new entry per sample; raw-socket client")
        return [first, mebibyte, firstSlice, mebibyteSlice]
    }

    /// Adds one run's medians: first bytes to `first`, times to 1 MiB to `whole`, Spool's against `reference`'s.
    private static func add(
        _ spool: [(Double, Double)], _ reference: [(Double, Double)], to first: inout BenchRow,
        _ whole: inout BenchRow
    ) {
        first.spool.append(BenchRow.median(spool.map(\.0)) ?? 0)
        first.reference.append(BenchRow.median(reference.map(\.0)) ?? 0)
        whole.spool.append(BenchRow.median(spool.map(\.1)) ?? 0)
        whole.reference.append(BenchRow.median(reference.map(\.1)) ?? 0)
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
