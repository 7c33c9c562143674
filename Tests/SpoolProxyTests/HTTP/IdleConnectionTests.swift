import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The proxy closes a connection that has been idle for two minutes, timed on the cache's clock: the test
/// moves the clock instead of waiting.
final class IdleConnectionTests: XCTestCase {
    func testAConnectionIdleForTwoMinutesOnTheCachesClockIsClosedAndOneIdleForOneIsNot() async throws {
        let clock = SteppedClock()
        // Each request's log record comes once its response's last write has started: then the connection's
        // last activity is known, and the clock may move past it.
        let (logged, log) = AsyncStream.makeStream(of: Void.self)
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(log: { _ in log.yield() }), clock: clock)
        var answered = logged.makeAsyncIterator()
        try fixture.serveGenerated("small.bin", length: 100, seed: 4)
        let url = try fixture.proxyURL("small.bin")
        let port = try XCTUnwrap(url.port)
        let target = url.path + (url.query.map { "?\($0)" } ?? "")
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        // A hang guard, not a measurement: the close comes at the clock's step.
        let socket = try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: 60)
        defer { close(socket) }

        _ = POSIXSocket.sendAll(socket, Data(request.utf8))
        var first = try await offPool { try Self.readResponse(socket) }
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(first.body, TestContent.generatedBytes(seed: 4, range: 0..<100))
        _ = await answered.next()

        // A minute later the connection still answers: it was not idle long enough.
        clock.advance(by: 60)
        _ = POSIXSocket.sendAll(socket, Data(request.utf8))
        first = try await offPool { try Self.readResponse(socket) }
        XCTAssertEqual(first.status, 200, "a connection idle for one minute stays open")
        _ = await answered.next()

        // Two minutes after its last activity, the proxy closes it: the read sees the end. The response's last
        // events reach the connection's handler on its event loop, which the log record does not wait for: one
        // that lands after the step starts the two minutes again, so the clock steps again (at most twice more)
        // while the socket stays open.
        var end = -1
        for _ in 0..<3 where end != 0 {
            clock.advance(by: 121)
            end = try await offPool { () -> Int in
                // Up to 2 s per step for the close to arrive: a poll of the socket, which offers no event.
                var byte: UInt8 = 0
                for _ in 0..<200 {
                    let received = recv(socket, &byte, 1, Int32(MSG_DONTWAIT))
                    if received == 0 { return 0 }
                    usleep(10_000)
                }
                return -1
            }
        }
        XCTAssertEqual(end, 0, "the proxy never closed the idle connection")
    }

    /// Reads one response with a `Content-Length` from `socket`.
    private static func readResponse(_ socket: Int32) throws -> (status: Int, body: Data) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<1000 {
            if let end = received.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let status = Int(lines[0].split(separator: " ")[1]) ?? 0
                let length =
                    lines.dropFirst().compactMap { line -> Int? in
                        let parts = line.split(separator: ":", maxSplits: 1)
                        guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                        return Int(parts[1].trimmingCharacters(in: .whitespaces))
                    }.first ?? 0
                if received.count - end.upperBound >= length {
                    return (status, Data(received[end.upperBound..<(end.upperBound + length)]))
                }
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { throw SocketFailure(description: "the connection ended before the response") }
            received += buffer[0..<count]
        }
        throw SocketFailure(description: "no whole response")
    }
}
