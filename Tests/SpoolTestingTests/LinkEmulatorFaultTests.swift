import Foundation
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The link's faults, on demand and on a seeded schedule, and its named profiles.
final class LinkEmulatorFaultTests: XCTestCase {
    func testBlackoutDelaysBytesByItsLengthAndConnectionsSurvive() throws {
        let origin = try makeOrigin()
        origin.serve(.generated(length: 10_000, seed: 1), at: "/small")
        let link = try makeLink(to: origin, linkProfile(milliseconds: 10, megabits: 100))
        let client = try RawHTTPClient(port: link.port)
        XCTAssertTrue(TimedResponse.get(client.fd, path: "/small").complete)

        link.blackout(seconds: 1)
        XCTAssertTrue(link.isBlackedOut)
        let fresh = try RawHTTPClient(port: link.port)
        let late = TimedResponse.get(client.fd, path: "/small")
        XCTAssertTrue(late.complete)
        XCTAssertEqual(late.body, TestContent.generatedBytes(seed: 1, range: 0..<10_000))
        XCTAssertGreaterThanOrEqual(late.firstByte, 0.95)
        XCTAssertLessThan(late.firstByte, 3)
        XCTAssertFalse(link.isBlackedOut)

        // The connection opened during the blackout waited for it too, then works.
        XCTAssertTrue(TimedResponse.get(fresh.fd, path: "/small").complete)
        XCTAssertEqual(link.connectionsAccepted, 2)
        XCTAssertEqual(origin.requestCount, 3)
        XCTAssertEqual(Set(origin.requests.map(\.path)), ["/small"])
    }

    func testResetMakesClientsSeeAConnectionError() throws {
        let origin = try makeOrigin()
        origin.serve(.generated(length: 10_000_000, seed: 2), at: "/big")
        let link = try makeLink(to: origin, linkProfile(milliseconds: 10, megabits: 8))
        let client = try RawHTTPClient(port: link.port)
        client.send("GET /big HTTP/1.1\r\nHost: link\r\n\r\n")
        XCTAssertTrue(eventually(timeout: 3) { link.bytesToClients > 50_000 })

        link.resetAllConnections()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var result = 0
        var total = 0
        repeat {
            result = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            total += max(0, result)
        } while result > 0
        XCTAssertEqual(result, -1, "a reset, not a clean end of stream")
        XCTAssertEqual(errno, ECONNRESET)
        XCTAssertLessThan(total, 10_000_000)
        XCTAssertTrue(eventually { link.openConnections == 0 })

        // The link itself is fine: a new connection works.
        let again = try RawHTTPClient(port: link.port, receiveTimeout: 20)
        XCTAssertTrue(TimedResponse.get(again.fd, path: "/big", range: "0-99999").complete)
    }

    func testStalledConnectionMovesNothingWhileAnotherFlows() throws {
        let origin = try makeOrigin()
        origin.serve(.generated(length: 200_000, seed: 3), at: "/media")
        let link = try makeLink(to: origin, linkProfile(milliseconds: 10, megabits: 100))
        link.stallNextConnection()
        let stalled = try RawHTTPClient(port: link.port, receiveTimeout: 10)
        stalled.send("GET /media HTTP/1.1\r\nHost: link\r\n\r\n")
        let flowing = try RawHTTPClient(port: link.port)

        for _ in 0..<3 {
            let response = TimedResponse.get(flowing.fd, path: "/media")
            XCTAssertTrue(response.complete)
            XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 3, range: 0..<200_000))
        }
        XCTAssertFalse(POSIXSocket.waitReadableForTest(stalled.fd, milliseconds: 300))
        XCTAssertEqual(origin.requestCount, 3, "the stalled request never left the client's side")
        XCTAssertEqual(link.openConnectionIndices, [0, 1])

        link.releaseStalls()
        let body = RawHTTPClient.parseAll(stalledResponse(stalled)).first?.body
        XCTAssertEqual(body, TestContent.generatedBytes(seed: 3, range: 0..<200_000))
    }

    func testStallingAConnectionByIndex() throws {
        let origin = try makeOrigin()
        origin.serve(.generated(length: 1000, seed: 4), at: "/small")
        let link = try makeLink(to: origin, linkProfile(milliseconds: 4, megabits: 100))
        let first = try RawHTTPClient(port: link.port)
        XCTAssertTrue(TimedResponse.get(first.fd, path: "/small").complete)
        let index = try XCTUnwrap(link.openConnectionIndices.first)

        link.stallConnection(index)
        first.send("GET /small HTTP/1.1\r\nHost: link\r\n\r\n")
        XCTAssertFalse(POSIXSocket.waitReadableForTest(first.fd, milliseconds: 300))
        link.releaseStalls()
        XCTAssertTrue(POSIXSocket.waitReadableForTest(first.fd, milliseconds: 2000))
    }

    func testScheduledFaultsHappenOnTime() throws {
        let origin = try makeOrigin()
        origin.serve(.generated(length: 10_000_000, seed: 5), at: "/big")
        let faults = LinkFaultSchedule(period: 0.6, blackout: 0.3, resetProbability: 1, seed: 9)
        let started = Date()
        let link = try makeLink(to: origin, linkProfile(milliseconds: 4, megabits: 8, faults: faults))
        let client = try RawHTTPClient(port: link.port, receiveTimeout: 10)
        client.send("GET /big HTTP/1.1\r\nHost: link\r\n\r\n")

        // Period 0 has no blackout but, with probability 1, a reset between 0.3 and 0.6 s; period 1 opens
        // with a blackout at 0.6 s.
        let received = client.readToEnd().count
        let resetAt = Date().timeIntervalSince(started)
        XCTAssertLessThan(received, 10_000_000)
        // Not before its moment (a busy machine can only make it later): the body was cut by the scheduled
        // reset, the only fault that can end it.
        XCTAssertGreaterThanOrEqual(resetAt, 0.25)
        XCTAssertTrue(eventually(timeout: 3) { link.isBlackedOut })
    }

    func testFaultScheduleIsSeeded() {
        let schedule = LinkFaultSchedule(period: 20, blackout: 3, resetProbability: 0.25, seed: 7)
        let periods = (0..<400).map { schedule.events(inPeriod: $0) }
        XCTAssertEqual(periods, (0..<400).map { schedule.events(inPeriod: $0) })
        XCTAssertTrue(periods[0].allSatisfy { $0.kind == .resetAll })
        for (index, events) in periods.enumerated().dropFirst() {
            XCTAssertEqual(events.first, .init(time: Double(index) * 20, kind: .blackout(3)))
            for event in events where event.kind == .resetAll {
                XCTAssertGreaterThanOrEqual(event.time, Double(index) * 20 + 3)
                XCTAssertLessThan(event.time, Double(index + 1) * 20)
            }
        }
        let resets = periods.filter { $0.contains { $0.kind == .resetAll } }.count
        XCTAssertGreaterThan(resets, 60)
        XCTAssertLessThan(resets, 140)
        let other = LinkFaultSchedule(period: 20, blackout: 3, resetProbability: 0.25, seed: 8)
        XCTAssertNotEqual(periods, (0..<400).map { other.events(inPeriod: $0) })
    }

    func testNamedProfiles() throws {
        XCTAssertEqual(LinkProfile.all.map(\.name), ["lan", "broadband", "mobile", "flaky-wifi"])
        let broadband = try XCTUnwrap(LinkProfile.named("broadband"))
        XCTAssertEqual(broadband.roundTrip, 0.040)
        XCTAssertEqual(broadband.bitsPerSecond, 40_000_000)
        XCTAssertEqual(broadband.bandwidthDelayProduct, 200_000)
        XCTAssertEqual(broadband.window, 400_000)
        XCTAssertEqual(LinkProfile.named("lan")?.window, 100_000)
        XCTAssertEqual(LinkProfile.named("mobile")?.bitsPerSecond, 10_000_000)
        let flaky = try XCTUnwrap(LinkProfile.named("flaky-wifi"))
        XCTAssertEqual(flaky.faults?.period, 20)
        XCTAssertEqual(flaky.faults?.blackout, 3)
        XCTAssertNil(LinkProfile.named("dial-up"))
        XCTAssertEqual(LinkProfile(name: "tiny", roundTrip: 0.001, bitsPerSecond: 1_000_000).window, 64 * 1024)
        XCTAssertEqual(broadband.description, "broadband (40 ms, 40 Mbit/s)")
    }

    /// Reads until the whole of one response for the 200 000-byte body has arrived.
    private func stalledResponse(_ client: RawHTTPClient) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while (RawHTTPClient.parseAll(data).first?.body.count ?? 0) < 200_000 {
            let count = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }
}

extension POSIXSocket {
    /// Whether anything (bytes, end of stream or an error) arrives on `fd` within `milliseconds`.
    static func waitReadableForTest(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }
}
