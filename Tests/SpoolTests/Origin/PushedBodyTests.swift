import Foundation
import XCTest

@testable import Spool

/// A body URLSession pushes: it pauses its transfer above a mark of unread bytes and resumes it below
/// another, hands chunks over in order, ends with the transfer's end or failure, and cancels the transfer when
/// its reader stops.
final class PushedBodyTests: XCTestCase {
    /// What a body did to its transfer, in order.
    private final class TransferLog: Sendable {
        let events = LockedBox<[String]>([])

        func body(pauseAbove: Int?, resumeBelow: Int) -> PushedBody {
            PushedBody(
                flow: BodyFlow(pauseAbove: pauseAbove, resumeBelow: resumeBelow),
                control: { action in self.events.withLock { $0.append("\(action)") } },
                cancel: { self.events.withLock { $0.append("cancel") } })
        }

        var recorded: [String] { events.withLock { $0 } }
    }

    private func chunk(_ byte: UInt8, _ count: Int) -> Data { Data(repeating: byte, count: count) }

    func testTheFlowPausesAtOneMarkAndGoesOnAtTheOther() {
        var flow = BodyFlow(pauseAbove: 100, resumeBelow: 40)
        XCTAssertNil(flow.received(60))
        XCTAssertEqual(flow.received(40), .pause, "100 unread: the mark")
        XCTAssertNil(flow.received(30), "paused already")
        XCTAssertNil(flow.taken(60), "70 unread, above the lower mark")
        XCTAssertEqual(flow.taken(30), .resume)
        XCTAssertNil(flow.taken(40))
        XCTAssertEqual(flow.buffered, 0)
        var never = BodyFlow(pauseAbove: nil, resumeBelow: 40)
        XCTAssertNil(never.received(10_000_000), "a transport that cannot pause never does")
        XCTAssertEqual(BodyFlow(pauseAbove: 10, resumeBelow: 40).resumeBelow, 10, "the lower mark is not above")
    }

    func testAnUnreadBodyPausesItsTransferAndTheReaderResumesIt() async throws {
        let log = TransferLog()
        let body = log.body(pauseAbove: 100, resumeBelow: 40)
        for byte in UInt8(1)...3 { body.receive(chunk(byte, 40)) }
        XCTAssertEqual(log.recorded, ["pause"], "120 bytes unread")
        body.receive(chunk(4, 40))
        XCTAssertEqual(log.recorded, ["pause"], "what is on its way when the pause reaches the transfer is kept")
        let first = try await body.next()
        let second = try await body.next()
        XCTAssertEqual([first, second], [chunk(1, 40), chunk(2, 40)])
        XCTAssertEqual(log.recorded, ["pause"], "80 unread")
        _ = try await body.next()
        XCTAssertEqual(log.recorded, ["pause", "resume"], "40 unread: the lower mark")
        body.finish()
        let last = try await body.next()
        let end = try await body.next()
        XCTAssertEqual(last, chunk(4, 40))
        XCTAssertNil(end)
        XCTAssertEqual(log.recorded, ["pause", "resume"], "a body read to its end cancels nothing")
    }

    func testAWaitingReaderTakesTheChunkAsItArrivesAndAFailureComesAfterTheChunksBeforeIt() async throws {
        let log = TransferLog()
        let body = log.body(pauseAbove: 100, resumeBelow: 40)
        let reader = Task { try await body.next() }
        // The reader may or may not be waiting yet: either way it gets this chunk, and nothing stays buffered.
        body.receive(chunk(7, 150))
        let received = try await reader.value
        XCTAssertEqual(received, chunk(7, 150))
        body.receive(chunk(8, 10))
        body.finish(throwing: SpoolError.network("reset"))
        let buffered = try await body.next()
        XCTAssertEqual(buffered, chunk(8, 10))
        do {
            _ = try await body.next()
            XCTFail("the failure was not thrown")
        } catch {
            XCTAssertEqual(error as? SpoolError, .network("reset"))
        }
        XCTAssertEqual(log.recorded.filter { $0 == "cancel" }, [], "a failed transfer is not cancelled")
    }

    func testCancellingTheReaderCancelsTheTransfer() async throws {
        let log = TransferLog()
        let body = log.body(pauseAbove: 100, resumeBelow: 40)
        let reader = Task { try await body.next() }
        reader.cancel()
        do {
            _ = try await reader.value
            XCTFail("a cancelled reader got a chunk")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        XCTAssertEqual(log.recorded, ["cancel"])
        body.receive(chunk(1, 10))
        let after = try? await body.next()
        XCTAssertNil(after, "nothing is read after the cancellation")
    }

    func testDroppingTheStreamBeforeItsEndCancelsTheTransferAndAfterItDoesNot() async throws {
        let log = TransferLog()
        do {
            let body = log.body(pauseAbove: 100, resumeBelow: 40)
            body.receive(chunk(1, 10))
            var iterator = body.stream.makeAsyncIterator()
            let first = try await iterator.next()
            XCTAssertEqual(first, chunk(1, 10))
        }
        XCTAssertEqual(log.recorded, ["cancel"], "the stream and its iterator were the body's last holders")
        let finished = TransferLog()
        do {
            let body = finished.body(pauseAbove: 100, resumeBelow: 40)
            body.receive(chunk(1, 10))
            body.finish()
            var all = Data()
            for try await part in body.stream { all += part }
            XCTAssertEqual(all, chunk(1, 10))
        }
        XCTAssertEqual(finished.recorded, [], "a body read to its end cancels nothing")
    }

    func testAnEndAndACancellationAtOnceNeitherDeadlockNorLoseTheReader() async throws {
        // The transport ends a body on its delegate's thread while the reader's task is cancelled on another:
        // a resume under the body's lock once met a cancellation handler waiting for it (each holding what the
        // other needed). Every round must end, with the reader told one of the two.
        for round in 0..<10_000 {
            let body = TransferLog().body(pauseAbove: 100, resumeBelow: 40)
            let reader = Task { try await body.next() }
            let ender = Thread { round.isMultiple(of: 2) ? body.finish() : body.receive(Data([1])) }
            ender.start()
            reader.cancel()
            let outcome = await reader.result
            if case .failure(let error) = outcome { XCTAssertTrue(error is CancellationError, "\(error)") }
        }
    }
}
