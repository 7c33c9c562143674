import Dispatch
import Foundation
import NIOCore
import Spool

/// What a "to the end" response that runs ahead of its client waits for before the cache asks the origin
/// for more: the client taking what it was sent, then not hanging up for a moment.
///
/// A response served from the cache outruns the client by whatever the socket buffers on both sides absorb,
/// and a player that abandons the request leaves those bytes unread: the proxy cannot tell from the socket
/// whether the client read them or is about to close. Fetching the bytes after the cached ones right away
/// would make a replayed session cost origin traffic its first play never needed. So the first origin
/// request of such a response waits until the socket has taken every byte written, then gives the client
/// `grace` to hang up; a player done with the request closes as soon as it has read its last bytes, and one
/// that keeps reading waits `grace` once, with the bytes already sent still to play. The grace is timed on the
/// cache's clock (`SpoolClock`), as every timer of the proxy is.
struct ClientPace: Sendable {
    let channel: any Channel
    let tracker: NIOLoopBound<SentBytesTracker>
    /// Seconds.
    let grace: TimeInterval
    let clock: any SpoolClock

    /// Where the clock's timers land before they hop to the connection's event loop.
    private static let timers = DispatchQueue(label: "spool.proxy.hang-up-grace")

    /// Returns once the socket has taken every byte written so far and the client has not hung up within
    /// `grace` after; throws if the connection closes first.
    func caughtUp() async throws {
        let loop = channel.eventLoop
        let tracker = tracker
        try await loop.flatSubmit { tracker.value.allAccepted(on: loop) }.get()
        let (channel, grace, clock) = (channel, grace, clock)
        let hungUp = try await loop.flatSubmit { () -> EventLoopFuture<Bool> in
            let promise = loop.makePromise(of: Bool.self)
            // Whichever comes first settles the promise; the other's completion is ignored.
            clock.schedule(at: clock.uptime + grace, on: Self.timers) {
                loop.execute { promise.succeed(false) }
            }
            channel.closeFuture.whenComplete { _ in promise.succeed(true) }
            return promise.futureResult
        }.get()
        if hungUp { throw ChannelError.ioOnClosedChannel }
    }
}
