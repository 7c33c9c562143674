import Foundation
import Spool
import SpoolTesting

/// Scenario 6: the peak resident memory (VmHWM) of a fresh `spool serve` while one client streams a large
/// file (first read, then again from the cache), and of another while many clients stream parts of it at once.
struct MemoryScenario {
    let rig: BenchRig

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        let size = rig.size(.memory)
        let clients = rig.plan.clients
        var one = BenchRow(
            id: "6a", title: "peak RSS of spool serve: 1 client streams \(ByteCountText.format(size)), cold then warm",
            unit: .bytes, higherIsBetter: false, goal: .value(atMost: 64 * 1_048_576))
        var many = BenchRow(
            id: "6b", title: "peak RSS of spool serve: \(clients) clients stream at once, cold", unit: .bytes,
            higherIsBetter: false)
        var idle: [Double] = []
        for run in 0..<rig.plan.memoryRuns {
            progress("memory: one client, run \(run + 1) of \(rig.plan.memoryRuns)")
            let single = try SpoolServer()
            defer { single.stop() }
            idle.append(Double(single.peakMemory ?? 0))
            let url = try single.url(for: rig.originURL(.memory))
            for _ in 0..<2 { _ = try rig.curl.get(url, expectedBytes: size) }
            one.spool.append(Double(try peak(of: single)))
            single.stop()

            progress("memory: \(clients) clients at once, run \(run + 1) of \(rig.plan.memoryRuns)")
            let shared = try SpoolServer()
            defer { shared.stop() }
            try streamAtOnce(clients: clients, server: shared, size: size)
            many.spool.append(Double(try peak(of: shared)))
        }
        one.notes.append(
            String(format: "spool serve right after start: %.1f MiB", (BenchRow.median(idle) ?? 0) / 1_048_576))
        many.notes.append(
            "client i reads `bytes=i×\(ByteCountText.format(size / Int64(clients)))-` and hangs up "
                + "after that many bytes: together they read the file once, \(clients) origin requests at a time")
        return [one, many]
    }

    private func peak(of server: SpoolServer) throws -> Int64 {
        guard let peak = server.peakMemory else {
            throw CommandFailure(message: "memory: cannot read /proc/\(server.process.pid)/status")
        }
        return peak
    }

    /// `clients` threads, each a player reading its share of the file from its own offset "to the end".
    private func streamAtOnce(clients: Int, server: SpoolServer, size: Int64) throws {
        let share = size / Int64(clients)
        let target = RangeReader.target(of: try server.url(for: rig.originURL(.memory)))
        let reader = RangeReader(port: server.port, timeout: 120)
        let failures = LockedBox<[String]>([])
        let group = DispatchGroup()
        for client in 0..<clients {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let transfer = try reader.get(target, range: "bytes=\(Int64(client) * share)-", limit: share)
                    if transfer.status != 206 || transfer.bodyBytes != share {
                        failures.withLock {
                            $0.append("client \(client): status \(transfer.status), \(transfer.bodyBytes) bytes")
                        }
                    }
                } catch {
                    failures.withLock { $0.append("client \(client): \(error)") }
                }
            }
        }
        group.wait()
        if let failure = failures.withLock({ $0.first }) {
            throw CommandFailure(
                message: "memory: \(failures.withLock { $0.count }) of \(clients) clients failed; \(failure)")
        }
    }
}
