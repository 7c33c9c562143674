import Foundation
import XCTest

@testable import Spool

/// What `EngineState` decides when a reader leaves requests nobody else waits for: a player's are abandoned,
/// for a read to join, and end when the driver expires them; a read ahead of playback's are cancelled.
final class AbandonedRequestStateTests: XCTestCase {
    private let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)

    /// A state with a known resource, one reader at 0 and the requests its first step started.
    private func waitingReader(isPrefetch: Bool = false) -> (state: EngineState, reader: Int, fetches: [Int]) {
        var state = EngineState(
            policy: FetchPolicy(), info: ContentInfo(length: 4_000_000, entityTag: "\"v1\""), stored: ByteRangeSet())
        let reader = state.addReader(requestedEnd: nil, isPrefetch: isPrefetch)
        guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: link), !started.isEmpty
        else {
            XCTFail("a reader of bytes not stored waits for requests")
            return (state, reader, [])
        }
        return (state, reader, started.map(\.id))
    }

    func testWhoseLeavingAbandonsAndWhoseCancels() {
        let cases: [(name: String, prefetch: Bool, abandonAt: Double?, cancels: Bool)] = [
            ("a player's leaving abandons", false, 10, false),
            ("a read ahead of playback cancels", true, 10, true),
            ("without a time (no grace), a player's cancels", false, nil, true),
        ]
        for item in cases {
            var (state, reader, fetches) = waitingReader(isPrefetch: item.prefetch)
            let cancelled = state.cancels { $0.removeReader(reader, abandonAt: item.abandonAt) }
            XCTAssertEqual(Set(cancelled), item.cancels ? Set(fetches) : [], item.name)
            for id in fetches {
                XCTAssertEqual(state.abandonedSince(fetch: id), item.cancels ? nil : 10, item.name)
                XCTAssertEqual(state.remaining(of: id) != nil, !item.cancels, item.name)
                // Either way, what it had received is still stored.
                XCTAssertNotNil(state.unstoredParts(of: 0..<1000, fetch: id), item.name)
            }
        }
    }

    func testAReadThatComesBackJoinsTheAbandonedRequest() {
        var (state, reader, fetches) = waitingReader()
        XCTAssertTrue(state.didStore(0..<20_000, fetch: fetches[0]))
        _ = state.cancels { $0.removeReader(reader, abandonAt: 10) }
        // The player asks again near where it was: it reads what is stored, then waits on the same requests.
        let again = state.addReader(requestedEnd: nil)
        guard case .read(let range, _) = state.driverStep(reader: again, position: 10_000, link: link) else {
            return XCTFail("stored bytes are read")
        }
        XCTAssertEqual(range, 10_000..<20_000)
        guard case .wait(let started) = state.driverStep(reader: again, position: 20_000, link: link) else {
            return XCTFail("it waits for the abandoned requests")
        }
        let abandonedEnd = fetches.compactMap { state.remaining(of: $0)?.upperBound }.max()!
        XCTAssertFalse(started.contains { $0.range.lowerBound < abandonedEnd }, "nothing they carry is asked again")
        for id in fetches {
            XCTAssertNil(state.abandonedSince(fetch: id), "joined, they are not abandoned any more")
            XCTAssertEqual(state.cancels { $0.expireAbandoned(fetch: id) }, [], "and do not expire")
            XCTAssertNotNil(state.remaining(of: id))
        }
    }

    func testAnAbandonedRequestNobodyJoinsExpires() {
        var (state, reader, fetches) = waitingReader()
        let other = state.addReader(requestedEnd: 10_000)
        _ = state.driverStep(reader: other, position: 0, link: link)
        _ = state.cancels { $0.removeReader(reader, abandonAt: 10) }
        XCTAssertNil(state.abandonedSince(fetch: fetches[0]), "a request another reader waits for goes on")
        for id in fetches.dropFirst() { XCTAssertEqual(state.abandonedSince(fetch: id), 10) }
        for id in fetches.dropFirst() {
            XCTAssertEqual(state.cancels { $0.expireAbandoned(fetch: id) }, [id])
            XCTAssertNil(state.remaining(of: id), "expired, it delivers nothing more")
            XCTAssertNotNil(state.unstoredParts(of: 0..<1000, fetch: id), "but stores the chunk it holds")
        }
        XCTAssertEqual(state.cancels { $0.expireAbandoned(fetch: fetches[0]) }, [])
        // A new version drops what an expired request still held.
        _ = state.absorb(
            ContentInfo(length: 4_000_000, entityTag: "\"v2\""), servedFrom: 0, requested: 0, fetch: fetches[0])
        XCTAssertNil(state.unstoredParts(of: 0..<1000, fetch: fetches[1]))
    }

    func testAReaderFromTheCacheAsksItsConsumerBeforeSettingAnAbandonedRequestGoing() {
        var (state, reader, fetches) = waitingReader()
        XCTAssertTrue(state.didStore(0..<20_000, fetch: fetches[0]))
        _ = state.cancels { $0.removeReader(reader, abandonAt: 10) }
        // A player replaying what is cached: it starts on stored bytes, which no request it waits for is
        // still delivering (the one at their end was abandoned), so it reads them as a cache hit,
        // (to 100 kB, which the abandoned requests cover: going on, it would start no new one)
        let replay = state.addReader(requestedEnd: 100_000)
        guard case .read = state.driverStep(reader: replay, position: 0, link: link) else {
            return XCTFail("stored bytes are read")
        }
        state.markDelivered(reader: replay, versionNumber: state.versionNumber)
        // and at their end asks its consumer whether it still wants more before the request goes again.
        XCTAssertTrue(state.mustAskConsumer(reader: replay, position: 20_000, link: link))
        XCTAssertEqual(state.abandonedSince(fetch: fetches[0]), 10, "asking set nothing going")
        state.consumerCaughtUp(reader: replay)
        XCTAssertFalse(state.mustAskConsumer(reader: replay, position: 20_000, link: link))
    }

    func testAPlayersNextReadElsewhereEndsTheAbandonedRequestsButADetourToTheTailKeepsThem() {
        // 4 MB: the tail is the last 2 MiB.
        XCTAssertEqual(EngineState.tailStart(ofLength: 4_000_000), 4_000_000 - 2_097_152)
        XCTAssertEqual(EngineState.tailStart(ofLength: 1_000_000_000), 950_000_000, "or the last 5 %")
        let cases: [(name: String, at: Int64, ends: Bool)] = [
            ("a seek to the middle", 1_000_000, true),
            ("a read of the tail (a moov at the end)", 3_900_000, false),
        ]
        for item in cases {
            var (state, reader, fetches) = waitingReader()
            _ = state.cancels { $0.removeReader(reader, abandonAt: 10) }
            let dropped = state.cancels { $0.dropAbandoned(forPlaybackReadAt: item.at) }
            XCTAssertEqual(Set(dropped), item.ends ? Set(fetches) : [], item.name)
            for id in fetches { XCTAssertEqual(state.remaining(of: id) == nil, item.ends, item.name) }
        }
    }

    func testAPlayersReadKeepsTheAbandonedRequestsItComesToThroughStoredBytes() {
        let cases: [(name: String, at: Int64, keepsTheNearOnes: Bool)] = [
            ("a read whose stored bytes lead to them joins them there", 100_000, true),
            ("a read past them goes elsewhere", 1_000_000, false),
        ]
        for item in cases {
            var state = EngineState(
                policy: FetchPolicy(), info: ContentInfo(length: 4_000_000), stored: ByteRangeSet([100_000..<600_000]))
            // A player's read after the stored bytes, and one far away, both left.
            var abandoned: [[Int]] = []
            for position: Int64 in [600_000, 2_000_000] {
                let reader = state.addReader(requestedEnd: nil)
                guard let started = state.startedWaiting(reader: reader, position: position, link: link),
                    !started.isEmpty
                else {
                    return XCTFail(item.name)
                }
                _ = state.cancels { $0.removeReader(reader, abandonAt: 10) }
                abandoned.append(started.map(\.id))
            }
            let (near, far) = (abandoned[0], abandoned[1])
            let dropped = state.cancels { $0.dropAbandoned(forPlaybackReadAt: item.at) }
            XCTAssertEqual(Set(dropped), item.keepsTheNearOnes ? Set(far) : Set(near + far), item.name)
            for id in near { XCTAssertEqual(state.remaining(of: id) != nil, item.keepsTheNearOnes, item.name) }
        }
    }
}
