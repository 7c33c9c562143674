import Foundation
import SpoolTesting

/// Scenarios 1 and 3a: a file already cached read whole through `spool serve`, and the first byte of a
/// cached range, each against nginx serving the same file directly.
struct WarmScenario {
    let rig: BenchRig
    let server: SpoolServer

    /// Reads the files once through the proxy so that they are cached; not measured. Returns once the
    /// server has finished what the download left (index writes, syncs), so the CPU figures count reads only.
    func prime() throws {
        for file in [BenchRig.File.throughput, .firstByte] {
            _ = try rig.curl.get(try server.url(for: rig.originURL(file)), expectedBytes: rig.size(file))
        }
        var last = ProcessCPU.seconds(ofProcessTree: server.process.pid) ?? 0
        for _ in 0..<30 {
            Thread.sleep(forTimeInterval: 0.1)
            let now = ProcessCPU.seconds(ofProcessTree: server.process.pid) ?? 0
            if now - last < 0.001 { break }
            last = now
        }
        // The fill's bytes reach the disk before the warm reads start: the server syncs them when the fill
        // ends, waiting on the disk rather than using the CPU, and that write-back must not run during (and
        // be counted in) the warm reads.
        sync()
    }

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        var throughput = BenchRow(
            id: "1", title: "warm throughput: cached \(ByteCountText.format(rig.size(.throughput))) file, one client",
            unit: .bytesPerSecond, higherIsBetter: true, referenceName: "nginx direct", goal: .ratio(atLeast: 0.8))
        var cpu = BenchRow(
            id: "1b", title: "CPU per GB served warm: the server's user + system time in row 1's reads",
            unit: .secondsPerGigabyte, higherIsBetter: false, referenceName: "nginx direct",
            goal: .ratio(atMost: 1.5))
        var firstByte = BenchRow(
            id: "3a", title: "first byte, warm: 64 KiB range, new connection", unit: .seconds, higherIsBetter: false,
            referenceName: "nginx direct")
        let before = try rig.originBytes(.throughput, quiet: 0.2) + rig.originBytes(.firstByte, quiet: 0.2)
        let proxied = try server.url(for: rig.originURL(.throughput))
        for run in 0..<rig.plan.runs {
            progress("warm throughput and first byte, run \(run + 1) of \(rig.plan.runs)")
            // Alternate who goes first, so neither always inherits the other's warm-up or page-cache state.
            let order = run % 2 == 0 ? [true, false] : [false, true]
            for viaSpool in order {
                let url = viaSpool ? proxied : rig.directURL(.throughput)
                // The server's own processes only: the client reading the bytes is the same for both.
                let server = viaSpool ? server.process.pid : rig.origin.processIdentifier
                let before = server.flatMap(ProcessCPU.seconds(ofProcessTree:))
                let speed = try rig.throughput(url, expected: rig.size(.throughput))
                let after = server.flatMap(ProcessCPU.seconds(ofProcessTree:))
                if viaSpool { throughput.spool.append(speed) } else { throughput.reference.append(speed) }
                if let before, let after {
                    let perGigabyte = (after - before) / (Double(rig.size(.throughput)) / 1e9)
                    if viaSpool { cpu.spool.append(perGigabyte) } else { cpu.reference.append(perGigabyte) }
                }
            }
            firstByte.spool.append(try medianFirstByte(try server.url(for: rig.originURL(.firstByte))))
            firstByte.reference.append(try medianFirstByte(rig.directURL(.firstByte)))
        }
        let fetched = try rig.originBytes(.throughput, quiet: 0.2) + rig.originBytes(.firstByte, quiet: 0.2) - before
        let check =
            "origin bytes during the warm runs: \(fetched)"
            + (fetched == 0 ? " (all from the cache)" : " (NOT fully cached)")
        throughput.notes.append(check)
        cpu.notes.append(
            "CPU time: the run time of every thread of the server's processes (/proc/PID/task/*/schedstat), "
                + "before and after each read; nginx: master and worker")
        return [throughput, cpu, firstByte]
    }

    /// The median time to the first byte of `firstByteSamples` requests for the first 64 KiB.
    private func medianFirstByte(_ url: URL) throws -> Double {
        let samples = try (0..<rig.plan.firstByteSamples).map { _ in
            try rig.curl.get(url, range: "0-65535", expectedBytes: 65536).firstByte
        }
        return BenchRow.median(samples) ?? 0
    }
}
