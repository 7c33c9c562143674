import XCTest

@testable import Spool

/// What the link monitor makes of the engine's own requests: idle connections, the round trip and the rate.
final class LinkMonitorTests: XCTestCase {
    private let url = URL(string: "http://origin.test/a.mp4")!

    func testIdleConnectionsAreCountedFromTheRequests() {
        let monitor = LinkMonitor()
        let now = SystemClock().uptime
        XCTAssertTrue(monitor.requestSent(url, at: now), "nothing open yet: a new connection")
        XCTAssertTrue(monitor.requestSent(url, at: now), "the one open is busy")
        XCTAssertEqual(monitor.estimate(for: url).spareConnections, 0)
        monitor.requestEnded(url, reusable: true, at: now)
        XCTAssertEqual(
            monitor.estimate(for: url).spareConnections, 1, "a body read to its end leaves its connection open")
        monitor.requestEnded(url, reusable: false, at: now)
        XCTAssertEqual(monitor.estimate(for: url).spareConnections, 1, "a cancelled body closes its connection")
        XCTAssertFalse(monitor.requestSent(url, at: now), "the idle one is used")
        monitor.requestEnded(url, reusable: true, at: now)
        let later = now + LinkMonitor.idleConnectionLifetime + 1
        XCTAssertTrue(monitor.requestSent(url, at: later), "after a long idle stretch the server has closed it")
    }

    func testTheRoundTripIsTheShortestRecentWaitOnAnOpenConnection() {
        let monitor = LinkMonitor()
        let now = SystemClock().uptime
        monitor.responded(url, after: 0.09, newConnection: true, at: now)
        XCTAssertEqual(monitor.estimate(for: url).roundTrip ?? 0, 0.045, accuracy: 1e-9, "half a new connection's wait")
        monitor.responded(url, after: 0.06, newConnection: false, at: now + 1)
        monitor.responded(url, after: 0.05, newConnection: false, at: now + 2)
        XCTAssertEqual(
            monitor.estimate(for: url).roundTrip ?? 0, 0.05, accuracy: 1e-9,
            "open connections' waits only, once there are some")
        monitor.responded(url, after: 0.08, newConnection: false, at: now + 2 + LinkMonitor.roundTripWindow + 1)
        XCTAssertEqual(monitor.estimate(for: url).roundTrip ?? 0, 0.08, accuracy: 1e-9, "old samples age out")
    }

    func testANewConnectionCostsTwoRoundTripsMoreOverTLSAndOneOverPlainHTTP() {
        let monitor = LinkMonitor()
        let now = SystemClock().uptime
        let secure = URL(string: "https://origin.test/a.mp4")!
        // 100 ms round trips: TCP's handshake, TLS 1.3's, then the request.
        monitor.responded(secure, after: 0.3, newConnection: true, at: now)
        XCTAssertEqual(monitor.estimate(for: secure).roundTrip ?? 0, 0.1, accuracy: 1e-9)
        XCTAssertEqual(monitor.estimate(for: secure).connectionSetup ?? 0, 0.2, accuracy: 1e-9)
        monitor.responded(secure, after: 0.11, newConnection: false, at: now + 1)
        XCTAssertEqual(
            monitor.estimate(for: secure).connectionSetup ?? 0, 0.19, accuracy: 1e-9,
            "measured: the new connection's wait less an open one's")
        monitor.responded(url, after: 0.2, newConnection: true, at: now)
        XCTAssertEqual(monitor.estimate(for: url).roundTrip ?? 0, 0.1, accuracy: 1e-9)
        XCTAssertEqual(monitor.estimate(for: url).connectionSetup ?? 0, 0.1, accuracy: 1e-9, "TCP's handshake only")
    }

    func testRequestsThatShareAConnectionCostNoHandshake() {
        // HTTP/2: every request after the first looks like a new connection's (none was idle) but is a
        // stream on the first one, answered in one round trip.
        let monitor = LinkMonitor()
        let now = SystemClock().uptime
        let secure = URL(string: "https://origin.test/a.mp4")!
        monitor.responded(secure, after: 0.3, newConnection: true, at: now)
        monitor.responded(secure, after: 0.1, newConnection: true, at: now + 0.3)
        monitor.responded(secure, after: 0.102, newConnection: true, at: now + 0.4)
        XCTAssertEqual(monitor.estimate(for: secure).roundTrip ?? 0, 0.1, accuracy: 1e-9)
        XCTAssertEqual(monitor.estimate(for: secure).connectionSetup ?? 1, 0, accuracy: 1e-9)
    }

    func testASingleResponseGivesALowerBoundOfTheRateAtOnce() {
        let monitor = LinkMonitor()
        let now = SystemClock().uptime
        XCTAssertNil(monitor.estimate(for: url).deliveryBytesPerSecond, "nothing delivered yet")
        monitor.delivered(16_384, from: url, after: 0.0005, at: now)
        XCTAssertEqual(monitor.estimate(for: url).deliveryBytesPerSecond ?? 0, 32_768_000, accuracy: 1)
        XCTAssertNil(monitor.estimate(for: url).bytesPerSecond, "far too short for a rate sample")
        monitor.delivered(65_536, from: url, after: 0.0005, at: now + 1)
        monitor.delivered(2, from: url, after: 0.0005, at: now + 2)
        XCTAssertEqual(
            monitor.estimate(for: url).deliveryBytesPerSecond ?? 0, 131_072_000, accuracy: 1,
            "the fastest recent delivery: a small one says nothing of the link")
        monitor.delivered(0, from: url, after: 0.001, at: now + 3)
        monitor.delivered(1000, from: url, after: 0, at: now + 3)
        XCTAssertEqual(monitor.estimate(for: url).deliveryBytesPerSecond ?? 0, 131_072_000, accuracy: 1, "no sample")
        monitor.delivered(16_384, from: url, after: 0.001, at: now + 2 + LinkMonitor.roundTripWindow + 1)
        XCTAssertEqual(
            monitor.estimate(for: url).deliveryBytesPerSecond ?? 0, 16_384_000, accuracy: 1, "old ones age out")
    }

    func testWhetherConnectionsAreSharedIsWhatTheLatestResponseSaid() {
        let monitor = LinkMonitor()
        let now = SystemClock().uptime
        XCTAssertFalse(monitor.estimate(for: url).multiplexed)
        monitor.responded(url, after: 0.05, newConnection: true, multiplexed: true, at: now)
        XCTAssertTrue(monitor.estimate(for: url).multiplexed, "an HTTP/2 response")
        monitor.responded(url, after: 0.05, newConnection: false, multiplexed: false, at: now + 1)
        XCTAssertFalse(monitor.estimate(for: url).multiplexed, "the origin went back to HTTP/1.1")
    }

    func testANewStreamsWindowIsWhatTheLatestResponseSaid() {
        let monitor = LinkMonitor()
        let now = SystemClock().uptime
        XCTAssertEqual(monitor.estimate(for: url).initialStreamWindow, 65_535, "HTTP/2's default until told")
        monitor.responded(
            url, after: 0.05, newConnection: true, multiplexed: true, initialStreamWindow: 8 << 20, at: now)
        XCTAssertEqual(monitor.estimate(for: url).initialStreamWindow, 8 << 20)
        monitor.responded(url, after: 0.05, newConnection: false, multiplexed: true, at: now + 1)
        XCTAssertEqual(monitor.estimate(for: url).initialStreamWindow, 65_535, "another transport's default")
    }

    func testTheRateIsTheMedianOfRecentSamples() {
        let monitor = LinkMonitor()
        let start = SystemClock().uptime
        monitor.bodyStarted(url, at: start)
        XCTAssertNil(monitor.estimate(for: url).bytesPerSecond)
        monitor.received(30_000, from: url, at: start)
        monitor.received(100_000, from: url, at: start + 0.05)
        monitor.received(300_000, from: url, at: start + 0.10)
        monitor.received(80_000, from: url, at: start + 0.15)
        XCTAssertEqual(
            monitor.estimate(for: url).bytesPerSecond ?? 0, 2_000_000, accuracy: 1, "neither the burst nor the pause")
        monitor.bodyEnded(url, at: start + 0.15)
        // Time with no body arriving does not count.
        monitor.bodyStarted(url, at: start + 5)
        monitor.received(30_000, from: url, at: start + 5)
        monitor.received(200_000, from: url, at: start + 5.05)
        monitor.received(200_000, from: url, at: start + 5.10)
        XCTAssertEqual(monitor.estimate(for: url).bytesPerSecond ?? 0, 4_000_000, accuracy: 1)
    }

    func testAFirstRateIsKnownBeforeTheFirstFullSample() {
        let monitor = LinkMonitor()
        let start = SystemClock().uptime
        monitor.bodyStarted(url, at: start)
        monitor.received(30_000, from: url, at: start)
        monitor.received(16_384, from: url, at: start + 0.004)
        XCTAssertNil(monitor.estimate(for: url).bytesPerSecond, "4 ms and 16 KiB tell nothing yet")
        monitor.received(16_384, from: url, at: start + 0.008)
        monitor.received(16_384, from: url, at: start + 0.012)
        XCTAssertEqual(
            monitor.estimate(for: url).bytesPerSecond ?? 0, 49_152 / 0.012, accuracy: 1,
            "the sample being gathered stands in while none is complete")
        monitor.received(100_000 - 49_152, from: url, at: start + 0.05)
        XCTAssertEqual(
            monitor.estimate(for: url).bytesPerSecond ?? 0, 2_000_000, accuracy: 1,
            "complete samples only, once there are some")
    }

    func testTheBytesThatCameWithAHeadAreNotARate() {
        let monitor = LinkMonitor()
        let start = SystemClock().uptime
        monitor.bodyStarted(url, at: start)
        // Half a piece arrived with the head, over time no body was open to count.
        monitor.received(32_768, from: url, at: start)
        monitor.received(200_000, from: url, at: start + 0.05)
        XCTAssertEqual(monitor.estimate(for: url).bytesPerSecond ?? 0, 4_000_000, accuracy: 1)
        // A body starting while another arrives: its first bytes came over counted time, and count.
        monitor.bodyStarted(url, at: start + 0.05)
        monitor.received(100_000, from: url, at: start + 0.1)
        monitor.bodyEnded(url, at: start + 0.1)
        monitor.received(100_000, from: url, at: start + 0.15)
        XCTAssertEqual(monitor.estimate(for: url).bytesPerSecond ?? 0, 2_000_000, accuracy: 1, "4, 2 and 2 MB/s")
    }

    func testAHeadThatCameAloneDoesNotMakeTheLinkLookSlower() {
        // An origin that sends a response head in a packet of its own (nginx without tcp_nopush): the body's
        // first chunk comes a while after it, which is no measure of the link either, as its bytes may have
        // crossed it before the head was read. Pieces of two 16 KiB chunks on a 1.25 MB/s link read at half
        // that rate when the wait counted without its chunk, and the pieces sized from it shrank.
        let monitor = LinkMonitor()
        var now = SystemClock().uptime
        for _ in 0..<8 {
            monitor.bodyStarted(url, at: now)
            monitor.received(16_384, from: url, at: now + 0.013)
            monitor.received(16_384, from: url, at: now + 0.026)
            monitor.bodyEnded(url, at: now + 0.026)
            now += 0.2
        }
        XCTAssertEqual(monitor.estimate(for: url).bytesPerSecond ?? 0, 16_384 / 0.013, accuracy: 1)
    }

    func testABodyHeldBackIsNotASlowLink() {
        let monitor = LinkMonitor()
        let start = SystemClock().uptime
        monitor.bodyStarted(url, at: start)
        monitor.received(20_000, from: url, at: start)
        monitor.received(200_000, from: url, at: start + 0.05)
        XCTAssertEqual(monitor.estimate(for: url).bytesPerSecond ?? 0, 4_000_000, accuracy: 1)
        // Held back for a second and a half (a player abandoned it), then read again: what waited in the
        // socket comes at once and is left out, and the pause counts for nothing.
        monitor.bodyPaused(url, at: start + 0.05)
        monitor.bodyResumed(url, at: start + 1.55)
        monitor.received(60_000, from: url, at: start + 1.55)
        monitor.received(200_000, from: url, at: start + 1.60)
        monitor.bodyEnded(url, at: start + 1.60)
        XCTAssertEqual(monitor.estimate(for: url).bytesPerSecond ?? 0, 4_000_000, accuracy: 1, "4 and 4 MB/s")
    }
}
