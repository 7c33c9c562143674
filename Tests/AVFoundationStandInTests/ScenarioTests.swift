#if os(Linux)
import AVFoundationStandIn
import XCTest

/// A correct delegate passes every ready-made scenario.
final class ScenarioTests: XCTestCase {
    private let length: Int64 = 3 * 1024 * 1024 + 12_345

    func testLinearPlayReadsTheWholeResource() async {
        let report = await Playback(length: length).run(.linearPlay(length: length))
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.requests, 3)
        XCTAssertGreaterThanOrEqual(report.bytesPlayed, length)
        XCTAssertNotNil(report.timeToFirstByte)
        XCTAssertGreaterThan(report.checksPassed, 10)
    }

    func testMoovAtEndServesTheTailBeforeTheRest() async {
        let report = await Playback(length: length).run(.moovAtEnd(length: length))
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.requests, 4)
    }

    func testSeekStormWithOverlappingRequests() async {
        let script = PlayerScript.seekStorm(length: length, seeks: 50, seed: 7)
        XCTAssertEqual(script.requests.count, 51)
        XCTAssertEqual(script, .seekStorm(length: length, seeks: 50, seed: 7), "the same seed gives the same storm")
        let report = await Playback(length: length).run(script)
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.requests, 51)
    }

    func testOfflineReplayIsLinearPlay() async {
        XCTAssertEqual(PlayerScript.offlineReplay(length: length), .linearPlay(length: length))
        let report = await Playback(length: length).run(.offlineReplay(length: length))
        XCTAssertEqual(report.failures, [])
    }

    func testResourceShorterThanTheFirstChunkMustBeFinished() async {
        let report = await Playback(length: 10_000).run(.linearPlay(length: 10_000))
        XCTAssertEqual(report.failures, [])
        XCTAssertGreaterThanOrEqual(report.bytesPlayed, 10_000)
    }

    @MainActor
    func testQueueOfThreeItemsPrebuffersTheNextAndNeverCancelsOnAdvance() async {
        let playbacks = (0..<3).map { Playback(length: 600_000 + Int64($0) * 1000, name: "item\($0).mp4") }
        let queue = QueueSimulation(
            items: playbacks.map {
                .init(
                    asset: $0.asset, expectedBytes: TestResource.bytes, resourceLength: $0.delegate.length,
                    expectedContentType: "public.mpeg-4")
            })
        let changes = NotificationCounter(object: queue.player)
        let reports = await queue.run(timeout: 10)
        XCTAssertEqual(reports.count, 3)
        for (index, report) in reports.enumerated() {
            XCTAssertEqual(report.failures, [], "item \(index)")
        }
        XCTAssertEqual(reports[1].requests, 2 + 3, "probe + 256 KB pre-buffer, then the three requests of linear play")
        XCTAssertEqual(changes.count, 3, "one items-changed notification per advance")
        XCTAssertTrue(queue.player.items().isEmpty)
    }
}

/// Counts `AVQueuePlayer.itemsDidChangeNotification` for one player.
final class NotificationCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    private var token: (any NSObjectProtocol)?

    init(object: AVQueuePlayer) {
        token = NotificationCenter.default.addObserver(
            forName: AVQueuePlayer.itemsDidChangeNotification, object: object, queue: nil
        ) { [weak self] _ in self?.increment() }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    var count: Int { lock.withLock { value } }

    private func increment() { lock.withLock { value += 1 } }
}
#endif
