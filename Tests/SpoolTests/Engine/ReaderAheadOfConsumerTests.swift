import XCTest

@testable import Spool

/// A reader that crossed stored bytes its requests were not bringing ran ahead of its consumer by what the
/// sockets took (the proxy writes stored bytes at disk speed), so before its next origin request it hears from
/// the consumer again (`EngineState.mustAskConsumer`): a player that hung up after fewer bytes costs nothing more.
final class ReaderAheadOfConsumerTests: XCTestCase {
    private let policy = FetchPolicy()
    /// 40 ms, 5 MB/s: a bandwidth-delay product of 200,000 bytes.
    private let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)

    func testAReaderThatCrossedALongStoredRunAsksItsConsumerBeforeItsNextRequest() {
        let cases: [(name: String, storedRun: Range<Int64>, mustAsk: Bool)] = [
            (
                "850,000 stored bytes after its own, over four products: it may be far ahead of its consumer",
                50_000..<900_000, true
            ),
            ("100,000, under 256 KiB: about what its requests keep ahead of it anyway", 50_000..<150_000, false),
        ]
        for test in cases {
            var state = EngineState(
                policy: policy, info: ContentInfo(length: 10_000_000), stored: ByteRangeSet([test.storedRun]))
            let reader = state.addReader(requestedEnd: nil)
            // Its first bytes come from the origin: its client waits on the network, and it may fetch.
            guard let started = state.startedWaiting(reader: reader, position: 0, link: link), !started.isEmpty else {
                return XCTFail(test.name)
            }
            for request in started {
                _ = state.didStore(request.range, fetch: request.id)
                state.finishFetch(request.id, failure: nil)
            }
            // It reads everything stored and stops at the first gap, before a step there would start requests.
            var position: Int64 = 0
            while state.stored.contains(position) {
                guard
                    case .read(let range, let versionNumber) = state.driverStep(
                        reader: reader, position: position, link: link)
                else {
                    return XCTFail(test.name)
                }
                state.markDelivered(reader: reader, versionNumber: versionNumber)
                position = range.upperBound
            }
            XCTAssertGreaterThanOrEqual(position, test.storedRun.upperBound, test.name)
            XCTAssertEqual(
                state.mustAskConsumer(reader: reader, position: position, link: link), test.mustAsk, test.name)
        }
    }

    func testAReaderFollowingItsOwnRequestNeedNotAskItsConsumer() {
        var state = EngineState(policy: policy, info: ContentInfo(length: 10_000_000), stored: ByteRangeSet())
        let reader = state.addReader(requestedEnd: nil)
        // Over a transport whose bodies pause while unread, a read's first request is 512 KiB.
        var pausing = link
        pausing.pausesWhileUnread = true
        guard let started = state.startedWaiting(reader: reader, position: 0, link: pausing), started.count == 1 else {
            return XCTFail()
        }
        // Its request stored twice a product ahead of it and still runs: the run ends where it delivers.
        XCTAssertTrue(state.didStore(0..<400_000, fetch: started[0].id))
        var position: Int64 = 0
        while position < 400_000 {
            guard
                case .read(let range, let versionNumber) = state.driverStep(
                    reader: reader, position: position, link: pausing)
            else {
                return XCTFail()
            }
            state.markDelivered(reader: reader, versionNumber: versionNumber)
            position = range.upperBound
        }
        XCTAssertFalse(state.mustAskConsumer(reader: reader, position: position, link: pausing))
    }
}
