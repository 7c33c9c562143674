import Foundation
import XCTest

@testable import Spool

/// The decisions of `EngineState` alone, without disk or network: what follows a failure, a new version, a
/// response that ignores the range, bytes gained or lost, readers that leave. Table-driven: each row is a
/// situation and the decision it must produce.
final class EngineStateTests: XCTestCase {
    private let policy = FetchPolicy(retryLimit: 3, retryDelay: 0.1, maximumRetryDelay: 0.5, outageTolerance: 12)
    private let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)

    /// A state with a known resource, one reader at 0 and the requests its first step started.
    private func waitingReader(length: Int64 = 1_000_000, stored: ByteRangeSet = ByteRangeSet()) -> (
        state: EngineState, reader: Int, fetches: [Int]
    ) {
        var state = EngineState(policy: policy, info: ContentInfo(length: length, entityTag: "\"v1\""), stored: stored)
        let reader = state.addReader(requestedEnd: nil)
        guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: link) else {
            XCTFail("a reader of bytes not stored waits for requests")
            return (state, reader, [])
        }
        return (state, reader, started.map(\.id))
    }

    private enum Expected: Equatable {
        case stop
        case retry(after: Double)
        case fail, newVersion
    }

    /// What followed a failure, from the actions it asked for and whether its readers now fail.
    private func kind(_ actions: [EngineAction], readersFail: Bool) -> Expected {
        for case .retry(_, let delay) in actions { return .retry(after: delay) }
        if actions.contains(.newVersion) { return .newVersion }
        XCTAssertTrue(actions.contains { if case .ended = $0 { true } else { false } }, "not retried, it ends")
        return readersFail ? .fail : .stop
    }

    func testOnlyRequestsThatReadsAheadOfPlaybackAloneWaitForMayPause() {
        struct Row {
            var name: String
            /// Readers at 0, each a prefetch read or not; the first one's step starts the request.
            var prefetch: [Bool]
            var mayPause: Bool
        }
        let rows = [
            Row(name: "a prefetch read alone", prefetch: [true], mayPause: true),
            Row(name: "a playback read alone", prefetch: [false], mayPause: false),
            Row(name: "a playback read joins a prefetch", prefetch: [true, false], mayPause: false),
            Row(name: "two prefetch reads", prefetch: [true, true], mayPause: true),
        ]
        for row in rows {
            var state = EngineState(
                policy: policy, info: ContentInfo(length: 1_000_000, entityTag: "\"v1\""), stored: ByteRangeSet())
            var started: [Int] = []
            for isPrefetch in row.prefetch {
                let reader = state.addReader(requestedEnd: nil, isPrefetch: isPrefetch)
                if case .wait(let starts) = state.driverStep(reader: reader, position: 0, link: link) {
                    started += starts.map(\.id)
                }
            }
            // The first reader's step starts the requests (a few pieces); the request at 0 is every reader's.
            XCTAssertFalse(started.isEmpty, row.name)
            XCTAssertEqual(started.first.map(state.mayPause(fetch:)), row.mayPause, row.name)
            if !row.prefetch.contains(false) {
                XCTAssertTrue(started.allSatisfy(state.mayPause(fetch:)), row.name)
            }
        }
        // A request nobody reads (the first, which brings the content information) never pauses; neither does
        // one whose readers left.
        var state = EngineState(
            policy: policy, info: ContentInfo(length: 1_000_000, entityTag: "\"v1\""), stored: ByteRangeSet())
        let reader = state.addReader(requestedEnd: nil, isPrefetch: true)
        guard case .wait(let starts) = state.driverStep(reader: reader, position: 0, link: link),
            let fetch = starts.first
        else { return XCTFail("a prefetch read of missing bytes starts a request") }
        _ = state.cancels { $0.removeReader(reader) }
        XCTAssertFalse(state.mayPause(fetch: fetch.id))
    }

    func testWhatFollowsAFailedRequest() {
        // Each row: failures of the first request, in order (error, bytes arrived since last sent, seconds
        // since it started), and the verdict of each.
        typealias Failure = (error: any Error, progressed: Bool, at: Double)
        let cases: [(name: String, failures: [Failure], verdicts: [Expected])] = [
            (
                "a transient failure is retried with growing waits, then ends after retryLimit in a row",
                [
                    (SpoolError.network("reset"), false, 0.1), (SpoolError.network("reset"), false, 0.3),
                    (SpoolError.network("reset"), false, 0.6), (SpoolError.network("reset"), false, 1.0),
                ],
                [.retry(after: 0.1), .retry(after: 0.2), .retry(after: 0.4), .fail]
            ),
            (
                "bytes between failures reset the count: a flaky link never exhausts its retries",
                [
                    (SpoolError.httpStatus(503), false, 0.1), (SpoolError.httpStatus(503), false, 0.3),
                    (SpoolError.httpStatus(503), false, 0.6),
                    (SpoolError.truncatedBody(expected: 9, received: 4), true, 1),
                    (SpoolError.network("reset"), false, 1.2),
                ],
                [.retry(after: 0.1), .retry(after: 0.2), .retry(after: 0.4), .retry(after: 0.1), .retry(after: 0.2)]
            ),
            (
                "a silent link is waited out for outageTolerance since the last byte, however many tries",
                [
                    (SpoolError.timedOut(), false, 2), (SpoolError.timedOut(), false, 4.1),
                    (SpoolError.timedOut(), false, 6.6),
                    (SpoolError.timedOut(), false, 9.1), (SpoolError.timedOut(), false, 11.6),
                    (SpoolError.timedOut(), false, 14.1),
                ],
                [
                    .retry(after: 0.1), .retry(after: 0.2), .retry(after: 0.4), .retry(after: 0.5), .retry(after: 0.5),
                    .fail,
                ]
            ),
            (
                "a client error is final at once",
                [(SpoolError.httpStatus(404), false, 0.1)], [.fail]
            ),
            (
                "416 with the known length is not a new version: it fails as it is",
                [(SpoolError.rangeNotSatisfiable(requested: 5, length: 1_000_000), false, 0.1)], [.fail]
            ),
            (
                "416 with another length is a new version",
                [(SpoolError.rangeNotSatisfiable(requested: 5, length: 999_999), false, 0.1)], [.newVersion]
            ),
            (
                "a cancelled request stops without failing anyone",
                [(CancellationError(), false, 0.1)], [.stop]
            ),
        ]
        for test in cases {
            var (state, reader, fetches) = waitingReader()
            let id = fetches[0]
            state.fetchStarted(id, at: 0)
            var verdicts: [Expected] = []
            for failure in test.failures {
                let actions = state.actions {
                    $0.fetchFailed(
                        id, error: failure.error, progressed: failure.progressed, cancelled: false, at: failure.at)
                }
                verdicts.append(kind(actions, readersFail: state.readers[reader]?.failure != nil))
            }
            XCTAssertEqual(verdicts, test.verdicts, test.name)
        }
    }

    func testAFinalFailureFailsItsReadersAndOnlyThem() {
        var (state, reader, fetches) = waitingReader()
        let bystander = state.addReader(requestedEnd: nil)
        // The bystander reads elsewhere, on its own request.
        guard case .wait(let own) = state.driverStep(reader: bystander, position: 800_000, link: link), !own.isEmpty
        else {
            return XCTFail("a reader far ahead starts its own request")
        }
        state.fetchFailed(fetches[0], error: SpoolError.httpStatus(404), progressed: false, cancelled: false, at: 1)
        guard case .fail(SpoolError.httpStatus(404, _, _)) = state.driverStep(reader: reader, position: 0, link: link)
        else {
            return XCTFail("the reader that waited on the failed request fails with its error")
        }
        guard case .wait = state.driverStep(reader: bystander, position: 800_000, link: link) else {
            return XCTFail("a reader on another request carries on")
        }
    }

    func testANewVersionDropsEverythingAndFailsReadersOfOldBytes() {
        var state = EngineState(
            policy: policy, info: ContentInfo(length: 1_000_000), stored: ByteRangeSet([0..<100_000]))
        let waiting = state.addReader(requestedEnd: nil)
        guard case .wait(let elsewhere) = state.driverStep(reader: waiting, position: 500_000, link: link) else {
            return XCTFail()
        }
        let fetches = elsewhere.map(\.id)
        // This reader has delivered old bytes.
        let old = state.addReader(requestedEnd: nil)
        guard case .read(_, let versionNumber) = state.driverStep(reader: old, position: 0, link: link) else {
            return XCTFail("stored bytes are read")
        }
        state.markDelivered(reader: old, versionNumber: versionNumber)
        guard case .wait(let started) = state.driverStep(reader: old, position: 100_000, link: link) else {
            return XCTFail()
        }
        let ids = Set(fetches + started.map(\.id))
        let actions = state.actions {
            $0.fetchFailed(
                started[0].id, error: SpoolError.rangeNotSatisfiable(requested: 100_000, length: 50_000),
                progressed: false, cancelled: false, at: 1)
        }
        XCTAssertTrue(actions.contains(.newVersion), "a new version")
        let cancel = actions.compactMap { if case .cancel(let id) = $0 { id } else { nil } }
        XCTAssertEqual(Set(cancel), ids.subtracting([started[0].id]), "every other request is cancelled")
        XCTAssertTrue(actions.contains(.ended(fetch: started[0].id)), "the one that found the change ends")
        XCTAssertTrue(state.stored.isEmpty)
        XCTAssertNil(state.info, "the new version's information comes with the next response")
        XCTAssertEqual(state.versionNumber, versionNumber + 1)
        guard case .fail(SpoolError.resourceChanged) = state.driverStep(reader: old, position: 100_000, link: link)
        else {
            return XCTFail("a reader that delivered old bytes cannot go on with new ones")
        }
    }

    func testResponsesAreTakenInByVersion() {
        let cases: [(name: String, answer: ContentInfo, servedFrom: Int64, dropsStored: Bool, acceptsRanges: Bool)] = [
            ("same version, range honoured", ContentInfo(length: 1_000_000, entityTag: "\"v1\""), 0, false, true),
            (
                "same version, range ignored: the origin cannot serve ranges",
                ContentInfo(length: 1_000_000, entityTag: "\"v1\""), -1, false, false
            ),
            ("another entity tag", ContentInfo(length: 1_000_000, entityTag: "\"v2\""), 0, true, true),
            ("another length", ContentInfo(length: 1_000_001, entityTag: "\"v1\""), 0, true, true),
        ]
        for test in cases {
            var (state, _, _) = waitingReader(stored: ByteRangeSet([600_000..<700_000]))
            let reader = state.addReader(requestedEnd: nil)
            guard case .wait(let started) = state.driverStep(reader: reader, position: 500_000, link: link) else {
                return XCTFail(test.name)
            }
            let request = started[0]
            let offset = test.servedFrom < 0 ? 0 : request.range.lowerBound
            let isNew = state.absorb(
                test.answer, servedFrom: offset, requested: request.range.lowerBound, fetch: request.id)
            XCTAssertEqual(isNew, test.dropsStored, test.name)
            XCTAssertEqual(state.stored.isEmpty, test.dropsStored, test.name)
            XCTAssertEqual(state.info?.acceptsRanges, test.acceptsRanges, test.name)
            XCTAssertEqual(state.remaining(of: request.id) != nil, true, "\(test.name): the answering request runs on")
        }
    }

    func testTheDiskReportsWhatItGainedAndLost() {
        var (state, reader, fetches) = waitingReader()
        XCTAssertTrue(state.didStore(0..<40_000, fetch: fetches[0]))
        // Another process's claims merged in, beyond the resource's end clamped away.
        state.gained(ByteRangeSet([40_000..<60_000, 990_000..<1_200_000]))
        XCTAssertEqual(state.stored.ranges, [0..<60_000, 990_000..<1_000_000])
        guard case .read(let range, _) = state.driverStep(reader: reader, position: 0, link: link) else {
            return XCTFail("stored bytes are read")
        }
        XCTAssertEqual(range, 0..<60_000)
        // Damage found in the middle: readers that need it wait for it again.
        state.lost([16_384..<32_768])
        guard case .read(let shorter, _) = state.driverStep(reader: reader, position: 0, link: link) else {
            return XCTFail()
        }
        XCTAssertEqual(shorter, 0..<16_384)
        guard case .wait = state.driverStep(reader: reader, position: 16_384, link: link) else {
            return XCTFail("lost bytes are waited for (a running request covers them)")
        }
    }

    func testContentInformationIsLearnedOnceAndReadsAreCappedByTheirLimit() {
        var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
        XCTAssertTrue(state.learn(ContentInfo(length: 10_000_000)))
        XCTAssertFalse(state.learn(ContentInfo(length: 5)), "a discovery call never replaces known information")
        XCTAssertEqual(state.info?.length, 10_000_000)
        state.gained(ByteRangeSet([0..<10_000_000]))
        let reader = state.addReader(requestedEnd: nil)
        let cases: [(limit: Int64?, expected: Range<Int64>)] = [
            (nil, 0..<Int64(policy.readChunkSize)), (4 << 20, 0..<(4 << 20)), (100, 0..<100),
        ]
        for test in cases {
            guard
                case .read(let range, _) = state.driverStep(
                    reader: reader, position: 0, link: link, readLimit: test.limit)
            else { return XCTFail() }
            XCTAssertEqual(range, test.expected, "limit \(String(describing: test.limit))")
        }
    }

    func testAReadThatTakesEverythingAsksForAllItLacksAtOnce() {
        // Each row: what is stored of a 6 MB resource, where the reader starts and ends, and the requests its
        // first step starts. A player's read (the first row) starts with a piece and a window of the link.
        let length: Int64 = 6_000_000
        let cases:
            [(
                name: String, extent: ReadExtent, stored: [Range<Int64>], from: Int64, end: Int64?,
                requests: [Range<Int64>]
            )] = [
                (
                    "a player's read: pieces up to a window", .mayStopEarly, [], 0, nil,
                    [
                        0..<50_000, 50_000..<100_000,
                        100_000..<150_000, 150_000..<200_000,
                    ]
                ),
                ("a whole read: one request to the end", .whole, [], 0, nil, [0..<length]),
                ("a whole bounded read: one request to its end", .whole, [], 1_000, 200_000, [1_000..<200_000]),
                (
                    "a whole read stops at stored bytes and goes on after them", .whole, [3_000_000..<4_000_000], 0,
                    nil,
                    [0..<3_000_000, 4_000_000..<length]
                ),
            ]
        for item in cases {
            var state = EngineState(
                policy: policy, info: ContentInfo(length: length, entityTag: "\"v1\""),
                stored: ByteRangeSet(item.stored))
            let reader = state.addReader(requestedEnd: item.end, extent: item.extent)
            guard case .wait(let started) = state.driverStep(reader: reader, position: item.from, link: link) else {
                XCTFail("\(item.name): waits for requests")
                continue
            }
            XCTAssertEqual(started.map(\.range), item.requests, item.name)
        }
    }

    func testRequestsOnlyALeavingReaderNeededAreCancelled() {
        var (state, reader, fetches) = waitingReader()
        let other = state.addReader(requestedEnd: nil)
        // It joins the first reader's requests, and may add one further ahead.
        guard case .wait(let added) = state.driverStep(reader: other, position: 10_000, link: link) else {
            return XCTFail()
        }
        XCTAssertEqual(state.cancels { $0.removeReader(reader) }, [], "requests another reader needs keep running")
        XCTAssertEqual(
            Set(state.cancels { $0.removeReader(other) }), Set(fetches + added.map(\.id)),
            "the last reader out cancels them")
        // A chunk a cancelled request had already received is still stored, until its task ends or a new
        // version comes.
        XCTAssertEqual(state.unstoredParts(of: 0..<1000, fetch: fetches[0]), [0..<1000])
        XCTAssertTrue(state.didStore(0..<1000, fetch: fetches[0]), "the rest of what it received is stored too")
        XCTAssertNil(state.remaining(of: fetches[0]), "and it asks for nothing more")
        _ = state.absorb(
            ContentInfo(length: 1_000_000, entityTag: "\"v2\""), servedFrom: 0, requested: 0, fetch: fetches[1])
        XCTAssertNil(state.unstoredParts(of: 1000..<2000, fetch: fetches[0]))
        // The first request of a resource, sent before anyone could say what it needs, runs on.
        var fresh = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
        let first = fresh.openDiscovered(ContentInfo(length: 1_000_000), servedFrom: 0, requested: 0..<300_000)
        let lone = fresh.addReader(requestedEnd: nil)
        _ = fresh.driverStep(reader: lone, position: 0, link: link)
        XCTAssertFalse(fresh.cancels { $0.removeReader(lone) }.contains(first))
        XCTAssertNotNil(fresh.remaining(of: first))
    }

    func testEvictionGivesUpTheLeastRecentlyUsedBlocksItMay() {
        let block = BlockLayout.blockSize
        let policy = FetchPolicy(maximumPieceSize: 2 * block)
        let now = Date(timeIntervalSinceReferenceDate: 1000)
        // Ten stored blocks; block 9 used last, then 8, and so on; blocks 0 and 1 never used in this process.
        var lastUse: [Int64: Date] = [:]
        for index in 2..<10 { lastUse[Int64(index)] = now.addingTimeInterval(Double(index)) }
        let cases: [(name: String, bytes: Int64, readers: [Int64], held: [Range<Int64>], expected: [Int64])] = [
            ("least recently used first, just enough", 3 * block, [], [], [0, 1, 2]),
            ("nothing asked, nothing given", 0, [], [], []),
            ("a reader's next piece stays", 3 * block, [0], [], [2, 3, 4]),
            ("a slice being sent stays", 2 * block, [], [block..<(3 * block)], [0, 3]),
            ("more than there is: all it may", 100 * block, [4 * block], [], [0, 1, 2, 3, 6, 7, 8, 9]),
        ]
        for test in cases {
            let state = EngineState(
                policy: policy, info: ContentInfo(length: 10 * block), stored: ByteRangeSet([0..<(10 * block)]))
            let chosen = state.blocksToShed(
                bytes: test.bytes, readers: test.readers, lastUse: lastUse, held: test.held)
            XCTAssertEqual(chosen.map { $0[0].lowerBound / block }, test.expected, test.name)
        }
        // A request filling the rest of a partial block keeps the block.
        let half = block / 2
        var filling = EngineState(
            policy: policy, info: ContentInfo(length: 20 * block), stored: ByteRangeSet([0..<(9 * block + half)]))
        let reader = filling.addReader(requestedEnd: nil)
        guard case .wait(let started) = filling.driverStep(reader: reader, position: 9 * block + half, link: link),
            !started.isEmpty
        else { return XCTFail("a reader past the stored bytes starts a request") }
        let chosen = filling.blocksToShed(bytes: 100 * block, readers: [], lastUse: lastUse, held: [])
        XCTAssertEqual(chosen.map { $0[0].lowerBound / block }, [0, 1, 2, 3, 4, 5, 6, 7, 8])
    }
}
