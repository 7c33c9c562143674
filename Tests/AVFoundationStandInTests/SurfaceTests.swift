#if os(Linux)
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

        func resourceLoader(
            _ resourceLoader: AVAssetResourceLoader,
            shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
        ) -> Bool {
            lock.withLock { received.append(loadingRequest) }
            return true
        }

        func resourceLoader(
            _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest
        ) {
            XCTAssertTrue(loadingRequest.isCancelled, "isCancelled is set before didCancel")
            lock.withLock { cancelled.append(loadingRequest) }
        }
    }

    /// Responds once, then keeps its queue busy until the player flags the request cancelled, responds and
    /// finishes anyway (too late, but before it could know), and records what it saw.
    final class CancelWatchingDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
        let queue = DispatchQueue(label: "CancelWatchingDelegate")
        private let lock = NSLock()
        private var flagFirst = false
        private var didCancelCalled = false

        var sawCancellationFlagFirst: Bool { lock.withLock { flagFirst } }
        var heardDidCancel: Bool { lock.withLock { didCancelCalled } }

        func resourceLoader(
            _ resourceLoader: AVAssetResourceLoader,
            shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
        ) -> Bool {
            let box = MemoryDelegate.Box(request: loadingRequest)
            queue.async { [self] in
                let request = box.request
                request.dataRequest?.respond(with: TestResource.bytes(0..<1000))
                let deadline = Date().addingTimeInterval(2)
                while !request.isCancelled, Date() < deadline { usleep(1000) }
                lock.withLock { flagFirst = request.isCancelled && !didCancelCalled }
                request.dataRequest?.respond(with: TestResource.bytes(1000..<1010))
                request.finishLoading()
            }
            return true
        }

        func resourceLoader(
            _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest
        ) {
            lock.withLock { didCancelCalled = true }
        }
    }

    /// Uses only the default implementations of the protocol.
    final class SilentDelegate: NSObject, AVAssetResourceLoaderDelegate {}

    func testRequestsCarryTheURLAndRangeAndCancelLoadingLeavesThemOpen() async throws {
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
        let running = Task { await simulator.run(script, timeout: 1) }
        while delegate.requests.count < 2 { try await Task.sleep(nanoseconds: 1_000_000) }
        let probe = delegate.requests[0]
        let toEnd = delegate.requests[1]
        XCTAssertEqual(probe.request.url, url)
        XCTAssertEqual(probe.request.value(forHTTPHeaderField: "Range"), "bytes=0-1")
        XCTAssertEqual(toEnd.request.value(forHTTPHeaderField: "Range"), "bytes=10-")
        XCTAssertNotNil(probe.contentInformationRequest)
        XCTAssertEqual(probe.dataRequest?.requestedLength, 2)
        XCTAssertNil(toEnd.contentInformationRequest)
        XCTAssertEqual(toEnd.dataRequest?.requestsAllDataToEndOfResource, true)
        XCTAssertEqual(toEnd.dataRequest?.requestedOffset, 10)
        XCTAssertEqual(
            toEnd.dataRequest?.requestedLength, Int.max, "NSIntegerMax while the player does not know the length")

        // Apple documents no effect of cancelLoading() on loading requests: they stay open, and the player
        // waits for the delegate to finish them.
        asset.cancelLoading()
        let report = await running.value
        XCTAssertTrue(report.failures.contains { $0.contains("accepted but never finished") }, "\(report.failures)")
        XCTAssertFalse(probe.isFinished)
    }

    func testToEndRequestsReportTheRemainingLengthOnceTheLengthIsKnown() async {
        let playback = Playback(length: 100_000)
        let script = PlayerScript(requests: [
            ScriptedRequest(info: true, data: false, offset: 0, length: 2),
            ScriptedRequest(offset: 1000, length: nil),
        ])
        let report = await playback.run(script)
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(playback.delegate.requestedLengths, [99_000], "the remaining length, not NSIntegerMax")
    }

    func testIsCancelledTurnsTrueBeforeDidCancelReachesTheDelegateQueue() async {
        let asset = AVURLAsset(url: URL(string: "spool-test://example.com/a.mp4")!)
        let delegate = CancelWatchingDelegate()
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        let simulator = PlayerSimulator(asset: asset, expectedBytes: TestResource.bytes, resourceLength: 100_000)
        let report = await simulator.run(
            PlayerScript(requests: [ScriptedRequest(offset: 0, length: nil, cancelAfter: 1000)]),
            timeout: 5)
        XCTAssertEqual(report.failures, [], "a respond or finish before didCancel is not the delegate's fault")
        XCTAssertTrue(
            delegate.sawCancellationFlagFirst, "isCancelled turned true while the delegate queue was still busy")
        XCTAssertTrue(delegate.heardDidCancel)
    }

    func testFinishingWithATypeOutsideAllowedContentTypesWouldCrash() async {
        let asset = AVURLAsset(url: URL(string: "spool-test://example.com/a.mp4")!)
        let delegate = MemoryDelegate(length: 10_000)
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        let report = await PlayerSimulator(
            asset: asset, expectedBytes: TestResource.bytes, resourceLength: 10_000,
            allowedContentTypes: ["public.mp3"]
        ).run(.linearPlay(length: 10_000))
        XCTAssertTrue(
            report.failures.contains {
                $0.contains("NSInternalInconsistencyException") && $0.contains("public.mpeg-4")
            },
            "\(report.failures)")
        let allowed = await PlayerSimulator(
            asset: asset, expectedBytes: TestResource.bytes, resourceLength: 10_000,
            allowedContentTypes: ["public.mp3", "public.mpeg-4"]
        ).run(.linearPlay(length: 10_000))
        XCTAssertEqual(allowed.failures, [])
    }

    func testACopyOfAnURLAssetHasALoaderWithoutTheDelegate() throws {
        let asset = AVURLAsset(url: URL(string: "spool-test://example.com/a.mp4")!, options: ["k": 1])
        let delegate = MemoryDelegate(length: 10)
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        let copy = try XCTUnwrap(asset.copy() as? AVURLAsset)
        XCTAssertFalse(copy === asset)
        XCTAssertEqual(copy.url, asset.url)
        XCTAssertNil(copy.resourceLoader.delegate)
    }

    func testDroppingAnAssetLeavesItsAcceptedRequestsOpen() async throws {
        var asset: AVURLAsset? = AVURLAsset(url: URL(string: "spool-test://example.com/a.mp4")!)
        let delegate = RecordingDelegate()
        asset?.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        let simulator = PlayerSimulator(
            asset: try XCTUnwrap(asset), expectedBytes: TestResource.bytes,
            resourceLength: 1000, hold: .weak)
        let running = Task {
            await simulator.run(PlayerScript(requests: [ScriptedRequest(offset: 0, length: nil)]), timeout: 1)
        }
        while delegate.requests.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        asset = nil
        let report = await running.value
        XCTAssertTrue(report.failures.contains { $0.contains("accepted but never finished") }, "\(report.failures)")
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

    @MainActor
    func testQueuePlayerEditsPostNotificationsAndCancelNothing() async {
        let items = (0..<3).map { AVPlayerItem(asset: AVURLAsset(url: URL(string: "spool-test://x/\($0).mp3")!)) }
        let player = AVQueuePlayer(items: [items[0], items[1]])
        let counter = NotificationCounter(object: player)
        XCTAssertTrue(player.currentItem === items[0])
        player.insert(items[2], after: items[0])
        XCTAssertEqual(
            player.items().map(ObjectIdentifier.init), [items[0], items[2], items[1]].map(ObjectIdentifier.init))
        XCTAssertFalse(player.canInsert(items[2], after: nil), "an item is in the queue only once")
        player.advanceToNextItem()
        XCTAssertTrue(player.currentItem === items[2])
        player.remove(items[1])
        player.removeAllItems()
        XCTAssertTrue(player.items().isEmpty)
        XCTAssertEqual(counter.count, 4)
    }
}
#endif
