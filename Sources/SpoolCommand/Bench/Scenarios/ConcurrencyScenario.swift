import Foundation
import SpoolTesting

/// Scenario 7: many wrk connections asking for random ranges of a cached file through `spool serve`, against
/// nginx serving it directly: requests per second, errors, and the slowest requests.
struct ConcurrencyScenario {
    let rig: BenchRig
    let server: SpoolServer

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        let plan = rig.plan
        let load = WrkLoad(command: rig.tools.wrk, connections: plan.connections, seconds: plan.wrkSeconds)
        let lengths = "\(load.rangeLengths.lowerBound / 1024)–\(load.rangeLengths.upperBound / 1024) KiB"
        var rate = BenchRow(
            id: "7a", title: "\(plan.connections) wrk connections, random \(lengths) ranges of the cached file",
            unit: .requestsPerSecond, higherIsBetter: true, referenceName: "nginx direct")
        var errors = BenchRow(
            id: "7b", title: "errors under that load (socket errors, non-2xx)", unit: .count, higherIsBetter: false,
            referenceName: "nginx direct", goal: .value(atMost: 0))
        var latency = BenchRow(
            id: "7c", title: "99th percentile latency under that load", unit: .seconds, higherIsBetter: false,
            referenceName: "nginx direct")
        var cpu = BenchRow(
            id: "7d", title: "server CPU per 1000 requests under that load", unit: .seconds, higherIsBetter: false,
            referenceName: "nginx direct")
        var throughput: [Double] = []
        let proxied = try server.url(for: rig.originURL(.throughput))
        for run in 0..<plan.runs {
            progress("wrk, run \(run + 1) of \(plan.runs) (\(plan.wrkSeconds) s each)")
            let order = run % 2 == 0 ? [true, false] : [false, true]
            for viaSpool in order {
                // The server's own processes only: wrk's share of the cores is the same for both.
                let measured = viaSpool ? server.process.pid : rig.origin.processIdentifier
                let before = measured.flatMap(ProcessCPU.seconds(ofProcessTree:))
                let result = try load.run(
                    viaSpool ? proxied : rig.directURL(.throughput), size: rig.size(.throughput), seed: run + 1)
                let after = measured.flatMap(ProcessCPU.seconds(ofProcessTree:))
                if let before, let after, result.requests > 0 {
                    let perThousand = (after - before) / Double(result.requests) * 1000
                    if viaSpool { cpu.spool.append(perThousand) } else { cpu.reference.append(perThousand) }
                }
                if viaSpool {
                    rate.spool.append(result.requestsPerSecond)
                    errors.spool.append(Double(result.errors))
                    latency.spool.append(result.p99Latency)
                    throughput.append(result.bytesPerSecond)
                } else {
                    rate.reference.append(result.requestsPerSecond)
                    errors.reference.append(Double(result.errors))
                    latency.reference.append(result.p99Latency)
                }
            }
        }
        rate.notes.append(
            String(
                format: "through Spool: %.0f MB/s of bodies (median); wrk and the server share the cores",
                (BenchRow.median(throughput) ?? 0) / 1e6))
        cpu.notes.append(
            "less noisy than 7a and 7c, which depend on how the scheduler shares the cores between wrk and the "
                + "server; CPU time as in 1b")
        return [rate, errors, latency, cpu]
    }
}
