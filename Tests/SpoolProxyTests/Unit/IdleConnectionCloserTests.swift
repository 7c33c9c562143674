import Dispatch
import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Spool
import XCTest

@testable import SpoolProxy

/// The proxy closes a connection that neither reads nor starts a write (a response's end aside) for its timeout,
/// and only then.
final class IdleConnectionCloserTests: XCTestCase {
    func testReadsAndWritesKeepAConnectionOpenAndSilenceClosesIt() throws {
        let (loop, clock) = (EmbeddedEventLoop(), InlineClock())
        let activity = ConnectionActivity(now: 0)
        let channel = EmbeddedChannel(
            handler: IdleConnectionCloser(timeout: 10, clock: clock, activity: activity), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        XCTAssertTrue(channel.isActive)

        clock.advance(by: 9, running: loop)
        XCTAssertTrue(channel.isActive, "not yet idle for 10 s")
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")))
        XCTAssertNil(activity.idleSince, "a request in progress")
        clock.advance(by: 9, running: loop)
        XCTAssertTrue(channel.isActive, "a read 9 s ago")
        try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "200"))))
        clock.advance(by: 9, running: loop)
        XCTAssertTrue(channel.isActive, "a write 9 s ago")
        // A response's end carries no bytes and may pass after the client read the body: it is no activity.
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        XCTAssertEqual(activity.idleSince, 27, "idle since its response ended")
        clock.advance(by: 2, running: loop)
        XCTAssertFalse(channel.isActive, "11 s without a read or a write")
    }

    func testARemovedCloserClosesNothing() throws {
        let (loop, clock) = (EmbeddedEventLoop(), InlineClock())
        let closer = IdleConnectionCloser(timeout: 10, clock: clock)
        let channel = EmbeddedChannel(handler: closer, loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.pipeline.syncOperations.removeHandler(closer).wait()
        clock.advance(by: 60, running: loop)
        XCTAssertTrue(channel.isActive)
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}

/// A clock that stands still until the test moves it, and then runs the timers that came due on the test's
/// own thread (their queue ignored): the embedded event loop that their work hops to must not be touched from
/// another thread.
private final class InlineClock: SpoolClock {
    private struct State {
        var now: TimeInterval = 0
        var timers: [(deadline: TimeInterval, work: @Sendable () -> Void)] = []
    }

    private let state = LockedBox(State(), rank: .clock)

    var uptime: TimeInterval { state.withLock { $0.now } }

    var date: Date { Date(timeIntervalSince1970: 1_800_000_000 + uptime) }

    func sleep(until deadline: TimeInterval) async throws {
        XCTFail("the closer sets timers; it does not sleep")
    }

    func schedule(at deadline: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.timers.append((deadline, work)) }
    }

    /// Moves the time forward, runs the timers it reached, then the loop's tasks they submitted (and again,
    /// for timers those set that are due too).
    func advance(by seconds: TimeInterval, running loop: EmbeddedEventLoop) {
        state.withLock { $0.now += seconds }
        for _ in 0..<10 {
            let due = state.withLock { state -> [@Sendable () -> Void] in
                let due = state.timers.filter { $0.deadline <= state.now }.map(\.work)
                state.timers.removeAll { $0.deadline <= state.now }
                return due
            }
            if due.isEmpty { return }
            for work in due { work() }
            loop.run()
        }
    }
}
