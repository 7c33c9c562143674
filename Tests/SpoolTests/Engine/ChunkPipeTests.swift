import Foundation
import XCTest

@testable import Spool

/// The pipe between a request's receiving and storing sides: batches in order, bounded, ended and cancelled
/// cleanly.
final class ChunkPipeTests: XCTestCase {
    func testChunksWaitingWhileTheWriterIsBusyComeAsOneBatchInOrder() async throws {
        let pipe = ChunkPipe(start: 1000, limit: 1 << 20)
        await pipe.push(Data([1, 2]))
        await pipe.push(Data([3]))
        await pipe.push(Data([4, 5, 6]))
        let first = await pipe.take()
        XCTAssertEqual(first?.0, [Data([1, 2]), Data([3]), Data([4, 5, 6])])
        XCTAssertEqual(first?.1, 1000)
        await pipe.push(Data([7]))
        pipe.finish()
        let second = await pipe.take()
        XCTAssertEqual(second?.0, [Data([7])])
        XCTAssertEqual(second?.1, 1006, "each batch starts where the one before ended")
        let end = await pipe.take()
        XCTAssertNil(end, "after the end and the last batch, nothing")
    }

    func testTheReceiverWaitsOnceTheLimitIsReached() async throws {
        let pipe = ChunkPipe(start: 0, limit: 100)
        let (receiver, pushed) = receive(3, chunksOf: 60, into: pipe, thenFinish: true)
        await until { pipe.waiting.pusher }
        XCTAssertEqual(pushed.withLock { $0 }, 1, "60 bytes pass, the next 60 reach the limit and wait")
        var total = 0
        while let (batch, _) = await pipe.take() {
            let bytes = batch.reduce(0) { $0 + $1.count }
            XCTAssertLessThanOrEqual(bytes, 120, "never more than the limit plus one chunk waits")
            total += bytes
        }
        await receiver.value
        XCTAssertEqual(total, 180)
    }

    func testCancellingEitherSideEndsItsWait() async throws {
        let pipe = ChunkPipe(start: 0, limit: 10)
        let taker = Task { await pipe.take() }
        await until { pipe.waiting.taker }
        taker.cancel()
        let taken = await taker.value
        XCTAssertNil(taken, "a cancelled writer stops waiting for bytes")

        let pusher = Task { await pipe.push(Data(count: 20)) }
        await until { pipe.waiting.pusher }
        pusher.cancel()
        await pusher.value
        let left = await pipe.take()
        XCTAssertEqual(left?.0, [Data(count: 20)], "what was pushed before the cancellation is still there to store")
    }

    func testWithALimitOfZeroTheNextChunkWaitsUntilTheLastIsStored() async throws {
        let pipe = ChunkPipe(start: 0, limit: 0)
        let (receiver, pushed) = receive(2, chunksOf: 10, into: pipe, thenFinish: false)
        await until { pipe.waiting.pusher }
        XCTAssertEqual(pushed.withLock { $0 }, 0, "the first chunk waits to be taken")
        _ = await pipe.take()
        // The take resumes no receiver with a limit of 0: it still waits, for the write.
        XCTAssertTrue(pipe.waiting.pusher)
        XCTAssertEqual(pushed.withLock { $0 }, 0, "taken is not stored: nothing overlaps the write")
        pipe.stored()
        await until { pushed.withLock { $0 } == 1 }
        _ = await pipe.take()
        pipe.stored()
        await receiver.value
    }

    /// Returns once `condition` holds: the other task reached the state the test waits for.
    private func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    /// A receiving side that pushes `count` chunks of `size` bytes, counting those the pipe took, then ends
    /// the body if `thenFinish`.
    private func receive(_ count: Int, chunksOf size: Int, into pipe: ChunkPipe, thenFinish: Bool) -> (
        Task<Void, Never>, LockedBox<Int>
    ) {
        let pushed = LockedBox(0)
        let receiver = Task {
            for _ in 0..<count {
                await pipe.push(Data(count: size))
                pushed.withLock { $0 += 1 }
            }
            if thenFinish { pipe.finish() }
        }
        return (receiver, pushed)
    }
}
