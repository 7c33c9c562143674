import Foundation
import Spool
import SpoolTesting
import XCTest

/// Reads across an emulated link (round trips, a bandwidth cap, faults), over both transports: the first GET
/// brings the content information, connections are reused, and blackouts, resets and a stalled connection
/// cost time, never a byte or a failed read.
class LinkTests: XCTestCase {
    var transport: OriginTransport { .urlSession }

    fileprivate func makeLinkedCache(
        _ fixture: HTTPFixture, profile: LinkProfile, policy: FetchPolicy = FetchPolicy(),
        originTimeout: TimeInterval = 10
    ) throws -> (LinkEmulator, SpoolCache, URL) {
        let link = try LinkEmulator(upstream: fixture.origin, profile: profile)
        addTeardownBlock { link.stop() }
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: fixture.directory, origin: fixture.makeHTTPOrigin(timeout: originTimeout),
                fetchPolicy: policy))
        return (link, cache, link.url(for: fixture.url.path))
    }

    func testAColdReadAsksNoHeadAndReusesItsConnections() async throws {
        let fixture = try HTTPFixture(test: self, transport: transport, length: 3_000_000)
        let (link, cache, url) = try makeLinkedCache(fixture, profile: .lan)
        let data = try await collect(cache.read(url))
        XCTAssertEqual(data, fixture.bytes(0..<3_000_000))
        let methods = fixture.origin.requests.map(\.method)
        XCTAssertEqual(methods.filter { $0 != "GET" }, [], "the first GET brings the content information")
        let connections = link.counters.connectionsAccepted
        guard transport == .urlSession else {
            // Bodies that pause while unread: the read is one request, on one connection, as a player's.
            XCTAssertEqual(methods.count, 1, "\(methods.count) requests over \(connections) connections")
            XCTAssertEqual(connections, 1, "\(methods.count) requests over \(connections) connections")
            return await cache.close()
        }
        XCTAssertGreaterThan(methods.count, 3)
        // At most a window of two bandwidth-delay products (every connection busy) in quarter-product pieces
        // runs at once, eight or nine requests; each new connection costs a handshake, so they are reused.
        XCTAssertLessThanOrEqual(connections, 10, "\(methods.count) requests over \(connections) connections")
        XCTAssertGreaterThanOrEqual(
            methods.count, 3 * connections, "\(methods.count) requests over \(connections) connections")
        print("[link] \(transport): \(methods.count) requests over \(link.counters.connectionsAccepted) connections")
        await cache.close()
    }

    func testABlackoutAndResetsDelayAReadButNeitherFailsItNorCorruptsIt() async throws {
        let fixture = try HTTPFixture(test: self, transport: transport, length: 4_000_000)
        let policy = FetchPolicy(stallTimeout: 0.5, outageTolerance: 10)
        let (link, cache, url) = try makeLinkedCache(
            fixture, profile: LinkProfile(name: "test", roundTrip: 0.01, bitsPerSecond: 16_000_000), policy: policy)
        let reading = Task { try await collect(cache.read(url)) }
        // Each fault at a stage of the read, whatever the machine's speed: the link's counters say when the
        // read is under way, when it flows again after the blackout and after it reconnected. (The blackout's
        // two seconds are the fault itself: the emulated link keeps real time.)
        let delivered = { link.counters.bytesToClients }
        let underway = await eventually(timeout: 30) { delivered() >= 800_000 }
        XCTAssertTrue(underway, "the read is under way")
        link.blackout(seconds: 2)
        let over = await eventually(timeout: 30) { !link.isBlackedOut }
        XCTAssertTrue(over, "the blackout ends")
        let afterBlackout = delivered()
        let flowing = await eventually(timeout: 30) { delivered() >= afterBlackout + 400_000 }
        XCTAssertTrue(flowing, "the read flows again")
        let connections = link.counters.connectionsAccepted
        link.resetAllConnections()
        let reconnected = await eventually(timeout: 30) { link.counters.connectionsAccepted > connections }
        XCTAssertTrue(reconnected, "the read reconnected")
        link.resetAllConnections()
        let data = try await reading.value
        XCTAssertEqual(data, fixture.bytes(0..<4_000_000))
        await cache.close()
    }

    func testEightReadsOverASharedSlowLinkFetchEachByteOnce() async throws {
        try await assertEightReadsOverASharedSlowLinkFetchEachByteOnce()
    }

    func testAStalledConnectionIsReplacedWhileOthersFlow() async throws {
        let fixture = try HTTPFixture(test: self, transport: transport, length: 2_000_000)
        let policy = FetchPolicy(stallTimeout: 0.4)
        // The origin's own timeout is an hour: only the stall detector can end the stalled request in time.
        let (link, cache, url) = try makeLinkedCache(fixture, profile: .lan, policy: policy, originTimeout: 3600)
        // The first connection (the first GET's) stops moving bytes for good.
        link.stallNextConnection()
        let finished = expectation(description: "the read ends")
        let reading = Task {
            defer { finished.fulfill() }
            return try await collect(cache.read(url))
        }
        // A hang guard far beyond the 0.4 s the detector takes, and far short of the origin's hour.
        await fulfillment(of: [finished], timeout: 120)
        reading.cancel()  // a read still running fails the test instead of hanging it
        let data = try await reading.value
        XCTAssertEqual(data, fixture.bytes(0..<2_000_000))
        XCTAssertGreaterThan(link.counters.connectionsAccepted, 1, "the stalled connection was replaced")
        await cache.close()
    }
}

extension LinkTests {
    /// Eight reads at once share a slow link: a connection's bytes wait behind the others' in the link's
    /// queue for longer than the stall timeout, while the host keeps answering. None is taken for stalled:
    /// dropping it would throw away what the link was about to deliver and ask for it again (the reads of eight
    /// 4 MB downloads once failed so, after fetching their bytes up to four times).
    func assertEightReadsOverASharedSlowLinkFetchEachByteOnce() async throws {
        let fixture = try HTTPFixture(test: self, transport: transport, length: 500_000)
        // Half the default stall timeout, and a link whose queue (eight windows of 512 KiB, each read's whole
        // file) holds 2.8 s before the last connection's bytes: a stall timer that counted that wait would fire
        // at every try, and a busy machine's pauses are far shorter.
        let policy = FetchPolicy(stallTimeout: 1)
        let profile = LinkProfile(name: "shared", roundTrip: 0.1, bitsPerSecond: 10_000_000, window: 512 * 1024)
        let (link, cache, _) = try makeLinkedCache(fixture, profile: profile, policy: policy, originTimeout: 3600)
        let urls = (0..<8).map { index -> URL in
            fixture.origin.serve(.generated(length: 500_000, seed: UInt64(50 + index)), at: "/album/\(index).mp3")
            return link.url(for: "/album/\(index).mp3")
        }
        let reads = try await withinHangBound(seconds: 120) {
            try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                for (index, url) in urls.enumerated() {
                    group.addTask { (index, try await collect(cache.read(url))) }
                }
                return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
            }
        }
        let data = try XCTUnwrap(reads, "the reads hung")
        for index in 0..<8 {
            XCTAssertEqual(data[index], TestContent.generatedBytes(seed: UInt64(50 + index), range: 0..<500_000))
        }
        // What the origin wrote, in flight included: each byte once.
        XCTAssertLessThanOrEqual(
            fixture.origin.bodyBytesSent, 8 * 500_000, "bytes fetched again: \(fixture.origin.requests.count) requests")
        await cache.close()
    }
}

/// The same over AsyncHTTPClient.
final class LinkOverAsyncHTTPClientTests: LinkTests {
    override var transport: OriginTransport { .asyncHTTPClient }

    // Linux test discovery does not see inherited test methods.
    override func testAColdReadAsksNoHeadAndReusesItsConnections() async throws {
        try await super.testAColdReadAsksNoHeadAndReusesItsConnections()
    }
    override func testABlackoutAndResetsDelayAReadButNeitherFailsItNorCorruptsIt() async throws {
        try await super.testABlackoutAndResetsDelayAReadButNeitherFailsItNorCorruptsIt()
    }
    override func testAStalledConnectionIsReplacedWhileOthersFlow() async throws {
        try await super.testAStalledConnectionIsReplacedWhileOthersFlow()
    }
    override func testEightReadsOverASharedSlowLinkFetchEachByteOnce() async throws {
        try await super.testEightReadsOverASharedSlowLinkFetchEachByteOnce()
    }
}

/// The same over URLSession as on Apple's platforms, whose bodies pause (`PushingTransport`).
final class LinkOverPushedBodiesTests: LinkTests {
    override var transport: OriginTransport { .pushedBodies }

    // Linux test discovery does not see inherited test methods.
    override func testAColdReadAsksNoHeadAndReusesItsConnections() async throws {
        try await super.testAColdReadAsksNoHeadAndReusesItsConnections()
    }
    override func testABlackoutAndResetsDelayAReadButNeitherFailsItNorCorruptsIt() async throws {
        try await super.testABlackoutAndResetsDelayAReadButNeitherFailsItNorCorruptsIt()
    }
    override func testAStalledConnectionIsReplacedWhileOthersFlow() async throws {
        try await super.testAStalledConnectionIsReplacedWhileOthersFlow()
    }
    override func testEightReadsOverASharedSlowLinkFetchEachByteOnce() async throws {
        try await super.testEightReadsOverASharedSlowLinkFetchEachByteOnce()
    }
}
