import Foundation
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A second host for tests: a network namespace of the test's own, joined to this one by a veth pair with an
/// address on each end (`10.x.y.1` here, `10.x.y.2` there). Needs root and iproute2, which CI has; elsewhere
/// the test is skipped with the reason, unless `SPOOL_REQUIRE_ROOT_NETWORK=1` (set by `.ci/run`) makes it fail.
final class NetworkNamespace: Sendable {
    let name: String
    /// This host's address on the link, and the other host's.
    let hostAddress: String
    let peerAddress: String
    private let hostInterface: String
    private let ip: ExternalCommand

    private static let counter = Locked(0)

    /// Makes the namespace and the link; the test's teardown removes them.
    init(test: XCTestCase) throws {
        guard let ip = ExternalCommand(named: "ip") else { throw Self.unavailable("iproute2 is not installed") }
        let serial = Self.counter.withLock { counter -> Int in
            counter += 1
            return counter
        }
        let id = (Int(getpid()) * 10 + serial) % 100_000
        let (subnetB, subnetC) = (200 + id % 50, (id / 50) % 250)
        self.ip = ip
        name = "spool-test-\(id)"
        hostInterface = "sph\(id)"
        hostAddress = "10.\(subnetB).\(subnetC).1"
        peerAddress = "10.\(subnetB).\(subnetC).2"
        let peerInterface = "spp\(id)"
        let setup: [[String]] = [
            ["netns", "add", name],
            ["link", "add", hostInterface, "type", "veth", "peer", "name", peerInterface],
            ["link", "set", peerInterface, "netns", name],
            ["addr", "add", "\(hostAddress)/30", "dev", hostInterface],
            ["link", "set", hostInterface, "up"],
            ["netns", "exec", name, "ip", "addr", "add", "\(peerAddress)/30", "dev", peerInterface],
            ["netns", "exec", name, "ip", "link", "set", peerInterface, "up"],
            ["netns", "exec", name, "ip", "link", "set", "lo", "up"],
        ]
        for (index, step) in setup.enumerated() {
            let output = try ip.run(step, timeout: 10)
            guard output.status == 0 else {
                remove()
                let reason = "ip \(step.joined(separator: " ")): \(output.stderr)"
                // The first step fails without root: no namespace can be made here at all.
                if index == 0 { throw Self.unavailable(reason) }
                throw ExternalCommand.Failure(description: reason)
            }
        }
        test.addTeardownBlock { [self] in remove() }
    }

    /// Runs `arguments` inside the namespace, as the other host.
    func run(_ arguments: [String], timeout: TimeInterval = 30) throws -> ExternalCommand.Output {
        try ip.run(["netns", "exec", name] + arguments, timeout: timeout)
    }

    /// One GET from the other host: curl's exit status, the HTTP status and the body.
    func fetch(_ url: String, method: String = "GET", headers: [String] = []) async throws -> (
        exit: Int32, status: Int, body: Data
    ) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("spool-netns-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let arguments =
            [
                "curl", "--silent", "--noproxy", "*", "--max-time", "10", "-X", method, "-o", file.path,
                "-w", "%{http_code}",
            ] + headers.flatMap { ["--header", $0] } + [url]
        let output = try await offPool { [self] in try run(arguments) }
        let body = (try? Data(contentsOf: file)) ?? Data()
        return (output.status, Int(output.stdoutText) ?? 0, body)
    }

    private func remove() {
        _ = try? ip.run(["link", "del", hostInterface], timeout: 10)
        _ = try? ip.run(["netns", "del", name], timeout: 10)
    }

    private static func unavailable(_ reason: String) -> any Error {
        let message = "a network namespace is needed (root and iproute2): \(reason)"
        if ProcessInfo.processInfo.environment["SPOOL_REQUIRE_ROOT_NETWORK"] == "1" {
            return ExternalCommand.Failure(description: message)
        }
        return XCTSkip(message)
    }
}
