import XCTest

@testable import Spool

/// The fetch-scheduling decisions, as values: given the link as measured and what a reader consumed, how far
/// ahead requests reach and how large they are; given a reader in a `EngineState`, which requests start.
final class ReadAheadTests: XCTestCase {
    private let policy = FetchPolicy()
    private static let kibibyte: Int64 = 1024

    func testWindowFollowsTheBandwidthDelayProduct() {
        let cases: [(name: String, link: LinkEstimate, consumed: Int64, window: Int64, piece: Int64)] = [
            ("nothing known: the first request's size", LinkEstimate(), 0, 512 * Self.kibibyte, 256 * Self.kibibyte),
            (
                "round trip known, rate assumed (2.5 MB/s x 40 ms)", LinkEstimate(roundTrip: 0.04, spareConnections: 1),
                0, 100_000, 25_000
            ),
            (
                "broadband: 40 ms, 40 Mbit/s",
                LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 1), 0, 200_000, 50_000
            ),
            (
                "broadband without an idle connection: a handshake's round trip more",
                LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000),
                0, 400_000, 50_000
            ),
            (
                "broadband over TLS 1.3 without an idle connection: two handshake round trips more",
                LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, connectionSetup: 0.08),
                0, 600_000, 50_000
            ),
            (
                "broadband over HTTP/2: a new request is a stream on the open connection, behind the others' bytes",
                LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, connectionSetup: 0),
                0, 300_000, 50_000
            ),
            (
                "broadband over HTTP/2, a read's first piece: a first request's size; past a new stream's 64 KiB "
                    + "window its bytes come a round trip on, which the window covers",
                LinkEstimate(
                    roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 3, connectionSetup: 0,
                    multiplexed: true),
                0, 400_000, 512 * Self.kibibyte
            ),
            (
                "broadband over HTTP/2 with 8 MiB stream windows: the window is the product, shorter than a piece",
                LinkEstimate(
                    roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 3, connectionSetup: 0,
                    multiplexed: true, initialStreamWindow: 8 << 20),
                0, 200_000, 512 * Self.kibibyte
            ),
            (
                "broadband over HTTP/2, a long read: pieces of what it consumed (an abandoned stream ends at once)",
                LinkEstimate(
                    roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 3, connectionSetup: 0,
                    multiplexed: true, initialStreamWindow: 8 << 20),
                4 * 1024 * Self.kibibyte, 200_000, 4 * 1024 * Self.kibibyte
            ),
            (
                "mobile over HTTP/2, a long read: its pieces are not bounded by a time on the link",
                LinkEstimate(
                    roundTrip: 0.1, bytesPerSecond: 1_250_000, connectionSetup: 0, multiplexed: true,
                    initialStreamWindow: 8 << 20),
                3 * 1024 * Self.kibibyte, 125_000, 3 * 1024 * Self.kibibyte
            ),
            (
                "over HTTP/2, pieces never exceed the maximum",
                LinkEstimate(
                    roundTrip: 0.1, bytesPerSecond: 1_250_000, multiplexed: true, initialStreamWindow: 8 << 20),
                20 * 1024 * Self.kibibyte, 125_000, 8 * 1024 * Self.kibibyte
            ),
            (
                "HTTP/1.1 with a connection believed idle: no handshake to cover, whatever was measured",
                LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 1, connectionSetup: 0),
                4 * 1024 * Self.kibibyte, 375_000, 250_000
            ),
            (
                "mobile: 100 ms, 10 Mbit/s",
                LinkEstimate(roundTrip: 0.1, bytesPerSecond: 1_250_000, spareConnections: 2), 0, 125_000, 31_250
            ),
            (
                "loopback: 0.2 ms, 100 MB/s: a piece is what arrives in a request's cost (1 ms)",
                LinkEstimate(roundTrip: 0.0002, bytesPerSecond: 100_000_000, spareConnections: 1),
                0, 150_000, 100_000
            ),
            (
                "loopback before a rate sample: one response's delivery (50 MB/s) sizes the piece",
                LinkEstimate(roundTrip: 0.0004, spareConnections: 1, deliveryBytesPerSecond: 50_000_000),
                0, 75_000, 50_000
            ),
            (
                "a slow delivery says nothing the rate does not: the measured rate sizes the piece",
                LinkEstimate(
                    roundTrip: 0.0002, bytesPerSecond: 100_000_000, spareConnections: 1,
                    deliveryBytesPerSecond: 1_000_000),
                0, 150_000, 100_000
            ),
            (
                "mobile: a delivery rate changes nothing (a request's cost is far less than a quarter product)",
                LinkEstimate(
                    roundTrip: 0.1, bytesPerSecond: 1_250_000, spareConnections: 2, deliveryBytesPerSecond: 900_000),
                0, 125_000, 31_250
            ),
            (
                "a fast LAN: 2 ms at 1 GB/s keeps in flight only what sustains 25 MB/s, in pieces of at most 256 KiB",
                LinkEstimate(roundTrip: 0.002, bytesPerSecond: 1e9, spareConnections: 1),
                0, 393_216, 256 * Self.kibibyte
            ),
            (
                "long read on loopback: 6 % of 10 MiB",
                LinkEstimate(roundTrip: 0.0002, bytesPerSecond: 100_000_000, spareConnections: 1),
                10 * 1024 * Self.kibibyte, 943_717, 629_145
            ),
            (
                "long read on mobile: grown pieces take at most 50 ms",
                LinkEstimate(roundTrip: 0.1, bytesPerSecond: 1_250_000, spareConnections: 2),
                4 * 1024 * Self.kibibyte, 125_000, 62_500
            ),
            (
                "before probation, no growth",
                LinkEstimate(roundTrip: 0.0002, bytesPerSecond: 100_000_000, spareConnections: 1),
                900 * Self.kibibyte, 150_000, 100_000
            ),
            (
                "pieces never exceed the maximum",
                LinkEstimate(roundTrip: 2, bytesPerSecond: 100_000_000, spareConnections: 1),
                0, 50_000_000, 8 * 1024 * Self.kibibyte
            ),
        ]
        for test in cases {
            let (window, piece) = policy.readAhead(afterConsuming: test.consumed, link: test.link)
            XCTAssertEqual(window, test.window, test.name)
            XCTAssertEqual(piece, test.piece, test.name)
        }
    }

    func testTheFirstRequestToAnUnknownHostIsTwiceAsLargeOverHTTPS() {
        let base = policy.firstRequestSize
        XCTAssertEqual(policy.firstRequestSize(for: URL(string: "http://cdn.example/a.mp4")!), base)
        XCTAssertEqual(policy.firstRequestSize(for: URL(string: "https://cdn.example/a.mp4")!), 2 * base)
        XCTAssertEqual(policy.firstRequestSize(for: URL(string: "HTTPS://cdn.example/a.mp4")!), 2 * base)
        XCTAssertEqual(
            FetchPolicy(firstRequestSize: 100_000).firstRequestSize(for: URL(string: "https://a/b")!), 200_000)
    }

    func testBandwidthDelayMultipleScalesTheWindow() {
        let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 1)
        for (multiple, window) in [(0.5, Int64(100_000)), (1, 200_000), (2, 400_000)] {
            XCTAssertEqual(
                FetchPolicy(bandwidthDelayMultiple: multiple).readAhead(afterConsuming: 0, link: link).window, window)
        }
    }

    func testWhatIsRetriedAndForHowLong() {
        let cases: [(name: String, error: any Error, failures: Int, silence: TimeInterval, retried: Bool)] = [
            ("a dropped connection, within the limit", SpoolError.network("reset"), 3, 0, true),
            ("a dropped connection, past the limit", SpoolError.network("reset"), 4, 0, false),
            ("an error status past the limit, however short", SpoolError.httpStatus(503), 4, 0.1, false),
            ("a silent link past the limit, within the tolerance", SpoolError.timedOut(), 20, 11, true),
            ("a silent link past the tolerance", SpoolError.timedOut(), 20, 12, false),
            ("not transient", SpoolError.httpStatus(404), 1, 0, false),
            ("not the origin's: cancelled", CancellationError(), 1, 0, false),
        ]
        for test in cases {
            XCTAssertEqual(
                policy.retries(after: test.error, failuresInARow: test.failures, silentFor: test.silence), test.retried,
                test.name)
        }
    }

    func testRetryWaitsDoubleUpToTheCap() {
        XCTAssertEqual((1...6).map { policy.retryWait(attempt: $0) }, [0.1, 0.2, 0.4, 0.5, 0.5, 0.5])
    }

    func testAReaderStartsRequestsCoveringOneWindowInPieces() {
        let info = ContentInfo(length: 10_000_000)
        let cases: [(name: String, link: LinkEstimate, starts: [Range<Int64>])] = [
            (
                "broadband: four pieces of a quarter product",
                LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4),
                [0..<50_000, 50_000..<100_000, 100_000..<150_000, 150_000..<200_000]
            ),
            (
                "broadband, every connection busy: two products",
                LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000),
                (0..<8).map { Int64($0) * 50_000..<Int64($0 + 1) * 50_000 }
            ),
            (
                "mobile", LinkEstimate(roundTrip: 0.1, bytesPerSecond: 1_250_000, spareConnections: 4),
                [0..<31_250, 31_250..<62_500, 62_500..<93_750, 93_750..<125_000]
            ),
            (
                "loopback: pieces of what arrives in a request's cost, one and a half ahead",
                LinkEstimate(roundTrip: 0.0002, bytesPerSecond: 100_000_000, spareConnections: 1),
                [0..<100_000, 100_000..<200_000]
            ),
        ]
        for test in cases {
            var state = EngineState(policy: policy, info: info, stored: ByteRangeSet())
            let reader = state.addReader(requestedEnd: nil)
            guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: test.link) else {
                return XCTFail("\(test.name): expected to wait for requests")
            }
            XCTAssertEqual(started.map(\.range), test.starts, test.name)
        }
    }

    func testARequestInFlightIsJoinedAndStoredBytesAreSkipped() {
        let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)
        var state = EngineState(
            policy: policy, info: ContentInfo(length: 1_000_000), stored: ByteRangeSet([150_000..<160_000]))
        let first = state.addReader(requestedEnd: nil)
        guard case .wait(let started) = state.driverStep(reader: first, position: 0, link: link) else {
            return XCTFail()
        }
        // Stored bytes are not asked for; a piece is whole even where it reaches past the window.
        XCTAssertEqual(started.map(\.range), [0..<50_000, 50_000..<100_000, 100_000..<150_000, 160_000..<210_000])
        let second = state.addReader(requestedEnd: nil)
        guard case .wait(let joined) = state.driverStep(reader: second, position: 10_000, link: link) else {
            return XCTFail()
        }
        XCTAssertEqual(joined.map(\.range), [], "a second reader joins the requests under way")
    }

    func testAReaderStartingOnBytesStillArrivingNeedNotAskItsConsumer() {
        let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)
        let cases: [(name: String, running: Bool, mustAsk: Bool)] = [
            ("the request that brought its first bytes still runs: the client waits on the network", true, false),
            ("its first bytes were cached before it came: a replay, the consumer is asked first", false, true),
        ]
        for test in cases {
            var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
            let first = state.openDiscovered(ContentInfo(length: 10_000_000), servedFrom: 0, requested: 0..<300_000)
            XCTAssertTrue(state.didStore(0..<100_000, fetch: first))
            if !test.running { state.finishFetch(first, failure: nil) }
            let reader = state.addReader(requestedEnd: nil)
            guard case .read(let range, let versionNumber) = state.driverStep(reader: reader, position: 0, link: link)
            else {
                return XCTFail(test.name)
            }
            state.markDelivered(reader: reader, versionNumber: versionNumber)
            XCTAssertEqual(
                state.mustAskConsumer(reader: reader, position: range.upperBound, link: link), test.mustAsk, test.name)
        }
    }

    func testAnOriginWithoutRangesGetsOneRequestForTheWholeGap() {
        var state = EngineState(
            policy: policy, info: ContentInfo(length: 3_000_000, acceptsRanges: false), stored: ByteRangeSet())
        let reader = state.addReader(requestedEnd: nil)
        guard
            case .wait(let started) = state.driverStep(reader: reader, position: 0, link: LinkEstimate(roundTrip: 0.04))
        else {
            return XCTFail()
        }
        XCTAssertEqual(started.map(\.range), [0..<3_000_000])
    }

    func testTheFirstResponseBringsTheContentInformationAndItsRequestRuns() {
        let cases:
            [(
                name: String, answered: ContentInfo, offset: Int64, requested: Range<Int64>, acceptsRanges: Bool,
                remaining: Range<Int64>
            )] = [
                ("a range inside the resource", ContentInfo(length: 1_000_000), 0, 0..<131_072, true, 0..<131_072),
                (
                    "a range running past the end is clamped", ContentInfo(length: 100_000), 50_000, 50_000..<181_072,
                    true, 50_000..<100_000
                ),
                (
                    "a server ignoring ranges sends everything", ContentInfo(length: 300_000), 0, 200_000..<331_072,
                    false, 0..<300_000
                ),
            ]
        for test in cases {
            var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
            var id = 0
            let cancelled = state.cancels {
                id = $0.openDiscovered(test.answered, servedFrom: test.offset, requested: test.requested)
            }
            XCTAssertEqual(cancelled, [], test.name)
            XCTAssertEqual(state.info?.length, test.answered.length, test.name)
            XCTAssertEqual(state.info?.acceptsRanges, test.acceptsRanges, test.name)
            XCTAssertEqual(state.remaining(of: id), test.remaining, test.name)
        }
    }

    func testTheFirstRequestRunsOnWhenItsReadersLeaveWhileOthersAreCancelled() {
        var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
        let first = state.openDiscovered(ContentInfo(length: 10_000_000), servedFrom: 0, requested: 0..<524_288)
        let probe = state.addReader(requestedEnd: 2)
        guard case .wait(let joined) = state.driverStep(reader: probe, position: 0, link: LinkEstimate(roundTrip: 0.04))
        else {
            return XCTFail()
        }
        XCTAssertEqual(joined.map(\.range), [], "the probe joins the first request")
        XCTAssertEqual(
            state.cancels { $0.removeReader(probe) }, [], "the player's next read starts on these bytes: not cancelled")
        XCTAssertNotNil(state.remaining(of: first))

        let seek = state.addReader(requestedEnd: nil)
        guard
            case .wait(let started) = state.driverStep(
                reader: seek, position: 5_000_000, link: LinkEstimate(roundTrip: 0.04))
        else {
            return XCTFail()
        }
        XCTAssertEqual(
            Set(state.cancels { $0.removeReader(seek) }), Set(started.map(\.id)),
            "requests only an abandoned read needed stop")
    }

    func testAFirstResponseOfANewVersionDropsWhatWasStored() {
        let old = ContentInfo(length: 1_000_000, entityTag: "\"a\"")
        var state = EngineState(policy: policy, info: old, stored: ByteRangeSet([0..<10_000]))
        let reader = state.addReader(requestedEnd: nil)
        guard case .read = state.driverStep(reader: reader, position: 0) else { return XCTFail() }
        guard case .wait(let running) = state.driverStep(reader: reader, position: 10_000) else { return XCTFail() }
        let cancelled = state.cancels {
            $0.openDiscovered(
                ContentInfo(length: 1_000_000, entityTag: "\"b\""), servedFrom: 500_000, requested: 500_000..<600_000)
        }
        XCTAssertEqual(Set(cancelled), Set(running.map(\.id)))
        XCTAssertTrue(state.stored.isEmpty)
        XCTAssertEqual(state.info?.entityTag, "\"b\"")
    }
}
