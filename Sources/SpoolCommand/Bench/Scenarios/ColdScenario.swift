import Foundation
import SpoolTesting

/// Scenarios 2 and 3b/3c: the first read of a file through `spool serve` (filling its cache from the origin)
/// against nginx direct and against the nginx slice proxy (filling its own); every run starts both proxies
/// anew with empty caches.
struct ColdScenario {
    let rig: BenchRig

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        let size = rig.size(.throughput)
        var direct = BenchRow(
            id: "2a", title: "cold throughput: first read of \(ByteCountText.format(size)) through the proxy",
            unit: .bytesPerSecond, higherIsBetter: true, referenceName: "nginx direct", goal: .ratio(atLeast: 0.7))
        var slice = BenchRow(
            id: "2b", title: "cold throughput, against the caching reference", unit: .bytesPerSecond,
            higherIsBetter: true, referenceName: "nginx slice proxy (cold)")
        var firstByteDirect = BenchRow(
            id: "3b", title: "first byte, cold: 64 KiB range of an uncached file", unit: .seconds,
            higherIsBetter: false, referenceName: "nginx direct")
        var firstByteSlice = BenchRow(
            id: "3c", title: "first byte, cold, against the caching reference", unit: .seconds,
            higherIsBetter: false, referenceName: "nginx slice proxy (cold)", goal: .ratio(atMost: 1.0))
        var originRatios: [Double] = []
        for run in 0..<rig.plan.runs {
            progress("cold throughput and first byte, run \(run + 1) of \(rig.plan.runs) (fresh proxies, empty caches)")
            let server = try SpoolServer()
            defer { server.stop() }
            let proxy = try NginxSliceProxy(origin: rig.origin.baseURL, executable: rig.tools.nginx)
            defer { proxy.stop() }

            // A new query string per sample is a new entry in both caches; nginx direct ignores it.
            var spoolSamples: [Double] = []
            var sliceSamples: [Double] = []
            var directSamples: [Double] = []
            for sample in 0..<rig.plan.firstByteSamples {
                let url = rig.originURL(.firstByte, query: "cold=\(run)-\(sample)")
                spoolSamples.append(
                    try rig.curl.get(try server.url(for: url), range: "0-65535", expectedBytes: 65536).firstByte)
                sliceSamples.append(
                    try rig.curl.get(proxy.url(for: Self.target(url)), range: "0-65535", expectedBytes: 65536).firstByte
                )
                directSamples.append(
                    try rig.curl.get(rig.directURL(.firstByte), range: "0-65535", expectedBytes: 65536).firstByte)
            }
            firstByteDirect.spool.append(BenchRow.median(spoolSamples) ?? 0)
            firstByteDirect.reference.append(BenchRow.median(directSamples) ?? 0)
            firstByteSlice.spool.append(BenchRow.median(spoolSamples) ?? 0)
            firstByteSlice.reference.append(BenchRow.median(sliceSamples) ?? 0)

            let url = rig.originURL(.throughput)
            let before = try rig.originBytes(.throughput, quiet: 0.2)
            Self.writeBackDirtyPages()
            let viaSpool = try rig.throughput(try server.url(for: url), expected: size)
            originRatios.append(Double(try rig.originBytes(.throughput, quiet: 0.3) - before) / Double(size))
            Self.writeBackDirtyPages()
            let viaSlice = try rig.throughput(proxy.url(for: Self.target(url)), expected: size)
            let viaDirect = try rig.throughput(rig.directURL(.throughput), expected: size)
            direct.spool.append(viaSpool)
            direct.reference.append(viaDirect)
            slice.spool.append(viaSpool)
            slice.reference.append(viaSlice)
        }
        direct.notes.append(
            String(
                format: "origin bytes ÷ file size for Spool's cold read: %.3f (median)",
                BenchRow.median(originRatios) ?? 0))
        return [direct, slice, firstByteDirect, firstByteSlice]
    }

    private static func target(_ url: URL) -> String { RangeReader.target(of: url) }

    /// Has the kernel write every dirty page to disk before a measurement starts. A cold read leaves hundreds
    /// of MB for the disk to take, synced at once by Spool and later by nginx; without this, the next
    /// measurement ran while the disk took the previous one's bytes, and whichever came second paid for both.
    private static func writeBackDirtyPages() {
        sync()
    }
}
