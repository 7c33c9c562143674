import AVFoundationStandIn
import XCTest

/// The AVFoundation surface behaves like Apple's where an adapter can tell.
final class SurfaceTests: XCTestCase {
    /// Records what the loader asked, so a test can inspect requests it did not create.
    final class RecordingDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
        let queue = DispatchQueue(label: "RecordingDelegate")
        private let lock = NSLock()
        private var received: [AVAssetResourceLoadingRequest] = []
        private var cancelled: [AVAssetResourceLoadingRequest] = []

        var requests: [AVAssetResourceLoadingRequest] { lock.withLock { received } }
        var cancellations: [AVAssetResourceLoadingRequest] { lock.withLock { cancelled } }

        func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                            shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
            lock.withLock { received.append(loadingRequest) }
            return true
        }

        func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
            XCTAssertTrue(loadingRequest.isCancelled, "isCancelled is set before didCancel")
            lock.withLock { cancelled.append(loadingRequest) }
        }
    }

    /// Uses only the default implementations of the protocol.
    final class SilentDelegate: NSObject, AVAssetResourceLoaderDelegate {}

    func testRequestsCarryTheURLAndRangeAndCancelLoadingCancelsThem() async throws {
        let url = URL(string: "spool-test://example.com/song.mp3")!
        let asset = AVURLAsset(url: url)
        let delegate = RecordingDelegate()
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        XCTAssertTrue(asset.resourceLoader.delegateQueue === delegate.queue)
        let simulator = PlayerSimulator(asset: asset, expectedBytes: TestResource.bytes, resourceLength: 1000)
        let script = PlayerScript(requests: [
            ScriptedRequest(info: true, data: true, offset: 0, length: 2),
            ScriptedRequest(offset: 10, length: nil, openWith: [0]),
        ])
        let running = Task { await simulator.run(script, timeout: 5) }
        while delegate.requests.count < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        let probe = delegate.requests[0], toEnd = delegate.requests[1]
        XCTAssertEqual(probe.request.url, url)
        XCTAssertEqual(probe.request.value(forHTTPHeaderField: "Range"), "bytes=0-1")
        XCTAssertEqual(toEnd.request.value(forHTTPHeaderField: "Range"), "bytes=10-")
        XCTAssertNotNil(probe.contentInformationRequest)
        XCTAssertEqual(probe.dataRequest?.requestedLength, 2)
        XCTAssertNil(toEnd.contentInformationRequest)
        XCTAssertEqual(toEnd.dataRequest?.requestsAllDataToEndOfResource, true)
        XCTAssertEqual(toEnd.dataRequest?.requestedOffset, 10)

        asset.cancelLoading()
        let report = await running.value
        XCTAssertEqual(report.failures, [], "cancelled requests owe no finish")
        XCTAssertEqual(delegate.cancellations.count, 2)
        XCTAssertTrue(probe.isCancelled && toEnd.isCancelled)
        XCTAssertFalse(probe.isFinished)
    }

    func testRespondAdvancesCurrentOffsetAndDefaultDelegateDeclines() async {
        let asset = AVURLAsset(url: URL(string: "spool-test://x/y.mp3")!)
        let delegate = SilentDelegate()
        asset.resourceLoader.setDelegate(delegate, queue: DispatchQueue(label: "silent"))
        let simulator = PlayerSimulator(asset: asset, expectedBytes: TestResource.bytes, resourceLength: 100)
        let report = await simulator.run(.linearPlay(length: 100), timeout: 2)
        XCTAssertTrue(report.failures.contains { $0.contains("returned false") }, "\(report.failures)")
        XCTAssertFalse(report.passed)
    }

    func testQueuePlayerEditsPostNotificationsAndCancelNothing() {
        let items = (0..<3).map { AVPlayerItem(asset: AVURLAsset(url: URL(string: "spool-test://x/\($0).mp3")!)) }
        let player = AVQueuePlayer(items: [items[0], items[1]])
        let counter = NotificationCounter(object: player)
        XCTAssertTrue(player.currentItem === items[0])
        player.insert(items[2], after: items[0])
        XCTAssertEqual(player.items().map(ObjectIdentifier.init), [items[0], items[2], items[1]].map(ObjectIdentifier.init))
        XCTAssertFalse(player.canInsert(items[2], after: nil), "an item is in the queue only once")
        player.advanceToNextItem()
        XCTAssertTrue(player.currentItem === items[2])
        player.remove(items[1])
        player.removeAllItems()
        XCTAssertTrue(player.items().isEmpty)
        XCTAssertEqual(counter.count, 4)
    }
}
