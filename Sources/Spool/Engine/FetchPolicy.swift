import Foundation

/// How the engine sizes, paces and retries its origin requests: every knob, for the engine, the tests and the
/// benchmarks; an app sets the few in `FetchTuning`.
///
/// A read keeps about a bandwidth-delay product of requests in flight ahead of its reader: the round trip
/// and throughput are measured per origin host from the engine's own responses (see `LinkMonitor`), so a
/// read fills a 40 ms, 40 Mbit/s link from its first round trip, while on a fast local network it asks for
/// little at a time. What an abandoned read wastes is about what was in flight, so this also bounds the
/// waste per seek to about one bandwidth-delay product (`bandwidthDelayMultiple` trades the two). Once a read
/// has consumed `probation`, its pieces also grow with what it consumed (`readAheadRatio`), as far as
/// `longestPieceTime` of the link allows, so a long read runs in few, large requests; over a connection that
/// multiplexes (HTTP/2), where an abandoned request ends with its stream alone, they start at `firstRequestSize`
/// and grow to what it consumed, asked for a product before the current one ends. Before anything is known of a
/// host, a read's first request asks for `firstRequestSize`, and that request's response carries the content
/// information: no `HEAD` first.
///
/// Where the origin's bodies pause while unread (`Origin.readsPauseWhileUnread`: AsyncHTTPClient, and URLSession
/// on Apple's platforms), a read fetches as a player does instead: its first request asks for its rest (up to
/// `wholeRequestLimit`), a read past its `probation` asks for all it lacks in one request, and what bounds the
/// read-ahead is a hold: a request that stored `readAheadOfReaders` beyond its farthest reader stops taking its
/// body until the reader comes near.
/// Measured over an emulated mobile link (100 ms, 10 Mbit/s, HTTPS): a cold 20 MB read went from 311 requests
/// on 6.5 connections to 1 on 1, at the same speed as direct.
package struct FetchPolicy: Sendable, Hashable {
    /// The smallest piece.
    package var initialPieceSize: Int64
    /// The largest piece.
    package var maximumPieceSize: Int64
    /// Once a read has consumed `probation`, its pieces are at least this share of what it consumed.
    package var readAheadRatio: Double
    /// A read's pieces grow with what it consumed only after it consumed this many bytes: most reads a
    /// player starts (each seek is one) are abandoned after a few hundred KiB.
    package var probation: Int64
    /// How many bandwidth-delay products a read keeps requested ahead of its reader. 1 keeps the link busy
    /// with the least waste when the read is abandoned; less starts slower, more wastes more per seek.
    package var bandwidthDelayMultiple: Double
    /// The size of the first request to a host nothing is known of. It brings the content information, and
    /// the requests that follow it can only be sent once its head arrives, on new connections: it must keep
    /// the link busy until their bytes come, about two round trips of a fast link (512 KiB covers
    /// 40 Mbit/s at 40 ms and 10 Mbit/s at 100 ms). Over HTTPS it asks for twice this: a new connection
    /// there takes a round trip more (the TLS handshake), and its handshake waits on the link behind the first
    /// response's bytes. A read abandoned at once wastes at most that, once per host.
    package var firstRequestSize: Int64
    /// The throughput assumed, in bytes per second, once a host's round trip is known and before enough
    /// bytes arrived to measure its rate.
    package var assumedBytesPerSecond: Double
    /// A read keeps no more in flight than sustains this rate (bytes per second) over the measured round
    /// trip. A link faster than that gains a player nothing (200 Mbit/s is eight 4K streams), while what an
    /// abandoned read wastes grows with what was in flight: on loopback or a fast LAN, reads stay small.
    package var sufficientBytesPerSecond: Double
    /// A piece grown with what its read consumed takes at most this long to arrive at the host's measured
    /// rate. A read abandoned after a long play wastes about what is in flight, and on a slow link pieces of
    /// 6 % of several MiB held half a second of the link that the player's next read (a seek) waited behind;
    /// on a fast one this still allows pieces of megabytes.
    package var longestPieceTime: TimeInterval
    /// A reader that needs bytes a running request will reach within this distance waits for them instead
    /// of opening another request.
    package var joinDistance: Int64
    /// How long a request whose last reader, a player's, hung up stays open for a read to join it. Players
    /// hang up and ask again nearby: ffmpeg leaves a read to fetch a `moov` at the end and comes back;
    /// AVPlayer replaces its loading requests. Cancelled at once, such a request's bytes in flight are lost
    /// and the origin sends them twice; joined, they arrive once. Meanwhile it is paused where the transport
    /// stops reading an unread body (AsyncHTTPClient: it takes no more than the socket buffers hold) and stores
    /// what keeps arriving otherwise (URLSession). Past the grace it is cancelled. Over HTTP/2 it has none: an
    /// unread stream is not paused, and what the origin sends of it crosses the link ahead of the next
    /// request's bytes (`EngineState.hold`). It is cancelled at once when the player's next read starts
    /// requests elsewhere than the resource's tail (a seek: it would take the link the seek's first bytes wait
    /// for), or when a player starts waiting for the link and none reads its resource (`PlaybackGate`), and a
    /// read ahead of playback's always is (a preload left by a swipe). 0 cancels at once.
    package var abandonedRequestGrace: TimeInterval
    /// How many times a failed request is tried again in a row without receiving a byte, when the origin
    /// answered (an error status) or refused the connection.
    package var retryLimit: Int
    /// The wait before the first retry, in seconds; it doubles with each further one, up to
    /// `maximumRetryDelay`. (Seconds rather than `Duration`, which iOS 15 lacks.)
    package var retryDelay: TimeInterval
    /// The longest wait between two retries, so a read resumes soon after a link comes back.
    package var maximumRetryDelay: TimeInterval
    /// A response that delivers no byte for this long is a stalled connection: it is dropped and the request
    /// tried again, on a fresh connection, from the first byte still missing.
    package var stallTimeout: TimeInterval
    /// The same while the host answers the engine's other requests: the silent request waits in a queue (the
    /// link's, with many connections sharing a slow one; the transport's, for a free connection), not on a
    /// dead connection, and replacing it would fetch again what the link was about to deliver.
    package var busyLinkStallTimeout: TimeInterval
    /// Requests that stall or time out (a link that went silent) are tried again for this long since their
    /// last byte before the read fails, whatever `retryLimit` says.
    package var outageTolerance: TimeInterval
    /// New bytes after which the index is brought up to date during a long request.
    package var indexInterval: Int64
    /// The largest chunk a reader returns at once from disk.
    package var readChunkSize: Int

    /// A policy; the defaults suit media over mobile and broadband networks.
    package init(
        initialPieceSize: Int64 = 16 * 1024,
        maximumPieceSize: Int64 = 8 * 1024 * 1024,
        readAheadRatio: Double = 0.06,
        probation: Int64 = 1024 * 1024,
        bandwidthDelayMultiple: Double = 1,
        firstRequestSize: Int64 = 512 * 1024,
        assumedBytesPerSecond: Double = 2_500_000,
        sufficientBytesPerSecond: Double = 25_000_000,
        longestPieceTime: TimeInterval = 0.05,
        joinDistance: Int64 = 1024 * 1024,
        abandonedRequestGrace: TimeInterval = 1.5,
        retryLimit: Int = 3,
        retryDelay: TimeInterval = 0.1,
        maximumRetryDelay: TimeInterval = 0.5,
        stallTimeout: TimeInterval = 2,
        busyLinkStallTimeout: TimeInterval = 8,
        outageTolerance: TimeInterval = 12,
        indexInterval: Int64 = 4 * 1024 * 1024,
        readChunkSize: Int = 256 * 1024
    ) {
        self.initialPieceSize = initialPieceSize
        self.maximumPieceSize = maximumPieceSize
        self.readAheadRatio = readAheadRatio
        self.probation = probation
        self.bandwidthDelayMultiple = bandwidthDelayMultiple
        self.firstRequestSize = firstRequestSize
        self.assumedBytesPerSecond = assumedBytesPerSecond
        self.sufficientBytesPerSecond = sufficientBytesPerSecond
        self.longestPieceTime = longestPieceTime
        self.joinDistance = joinDistance
        self.abandonedRequestGrace = abandonedRequestGrace
        self.retryLimit = retryLimit
        self.retryDelay = retryDelay
        self.maximumRetryDelay = maximumRetryDelay
        self.stallTimeout = stallTimeout
        self.busyLinkStallTimeout = max(stallTimeout, busyLinkStallTimeout)
        self.outageTolerance = outageTolerance
        self.indexInterval = indexInterval
        self.readChunkSize = readChunkSize
    }

    /// The first request to a host nothing is known of, for the resource at `url`: `firstRequestSize`, twice
    /// that over HTTPS. Measured on the bench's broadband link (40 ms, 40 Mbit/s) over TLS 1.3, time to 1 MiB
    /// was 1.16-1.19 × direct with 512 KiB (the follow-ups' bytes came 133 ms after the first head, the first
    /// response lasted 99 ms), 1.00 with 1 MiB; 768 KiB did not help, its follow-ups queued longer behind it.
    func firstRequestSize(for url: URL) -> Int64 {
        url.scheme?.lowercased() == "https" ? 2 * firstRequestSize : firstRequestSize
    }

    /// How much the first request of a `.whole` read asks for while the resource's length is unknown: HLS
    /// segments and keys are far smaller, so they come in one request; what lies beyond is asked for next.
    package static let wholeRequestLimit: Int64 = 64 << 20

    /// The most bytes handed out at once as a `FileSlice`: no buffer holds them, so a slice may be larger
    /// than a read chunk. Each costs a trip through the engine and the event loop, about a millisecond: with
    /// 4 MiB slices a warm read through the proxy held at 3.6–3.7 GB/s in three runs, with 16 MiB ones
    /// 3.4–5.2 GB/s (nginx direct 3.4–7.8). A slice's bytes are spared by eviction until it is sent, which a
    /// slow client makes longer; a new version revokes it at once.
    package var fileSliceSize: Int { max(readChunkSize, 16 << 20) }

    /// What one origin request costs the engine besides its bytes (the request, its response head, a task
    /// and a write job), about a millisecond: on a link fast enough that a piece arrives sooner, pieces grow
    /// to what the link carries in that time (up to `requestCostPieceLimit`), or a cold read on loopback
    /// spends its time on requests (16 KiB pieces took a player's 380 KB read to the `moov` 24 requests).
    package static let requestCost: TimeInterval = 0.001
    /// The largest piece `requestCost` makes: what a read abandoned at once wastes on a fast link.
    package static let requestCostPieceLimit: Int64 = 256 * 1024

    /// How far ahead of its reader a read's requests reach (`window`) and how large each new one is
    /// (`piece`), for a read that has consumed `consumed` bytes over `link`.
    ///
    /// A request's bytes come a round trip after it is sent, two on a new connection: the window is what
    /// the link carries in that time, so the next request is under way before the bytes ahead run out. Its
    /// bytes are committed (sent by the origin, in flight) half a round trip after it is sent, so a read
    /// abandoned at any moment has about half a bandwidth-delay product and half a piece committed beyond
    /// its reader: pieces are a quarter of the product, the least that keeps a handful of connections busy.
    func readAhead(afterConsuming consumed: Int64, link: LinkEstimate) -> (window: Int64, piece: Int64) {
        var grown = consumed >= probation ? Int64(Double(consumed) * readAheadRatio) : 0
        if link.multiplexed {
            // On a shared connection an abandoned request ends with its stream, not its connection: what it
            // wastes and what a seek waits behind are its bytes in flight. So a read's pieces start at a first
            // request's size and double with what it consumed: a seek's read (most end within a few hundred
            // KiB) in one or two requests, a long read in a handful.
            grown = max(firstRequestSize, consumed)
        } else if let rate = link.bytesPerSecond {
            grown = min(grown, Int64((rate * longestPieceTime).rounded()))
        }
        let piece = min(maximumPieceSize, max(smallestPiece(link), grown))
        let rate = plannedRate(link)
        let product = link.roundTrip.map { rate * $0 }
        guard let roundTrip = link.roundTrip, let product else {
            return (max(firstRequestSize, piece + piece / 2), piece)
        }
        // What a new request waits beyond a round trip for its bytes, which the window must cover too.
        let extraWait: TimeInterval
        if link.multiplexed {
            // Requests share a connection (HTTP/2), as the transport said: no handshake, and idle connections
            // mean nothing. A new stream carries only its initial flow-control window until the client's
            // window update, sent on its first bytes, reaches the server: a round trip more for the rest of
            // a larger piece. Measured on broadband over HTTP/2 (medians of 3 runs), AsyncHTTPClient with
            // 8 MiB windows: a 20-seek session's link bytes 1.61 x those played with no extra wait, 1.90 with
            // the half round trip once added for a new stream's bytes queueing behind the others' (which
            // was the small windows' doing), times to 1 and 4 MiB and the full read the same. With 64 KiB
            // windows, leaving out the round trip for larger pieces made time to 4 MiB 1.21 x direct
            // (1.05 with it) and the full read 0.81 (0.86).
            extraWait = piece > link.initialStreamWindow ? roundTrip : 0
        } else {
            // Without an idle connection, the request waits the handshakes more for its first byte: one round
            // trip over HTTP, two over TLS 1.3. A transport that does not say it multiplexes but sends new
            // requests on an open connection shows no handshake, and gets half a round trip: it may be one
            // with HTTP/2's small windows, for which that margin was measured (time to 1 MiB 1.00 x direct,
            // 1.09-1.28 without it).
            extraWait = link.spareConnections > 0 ? 0 : max(link.connectionSetup ?? roundTrip, roundTrip / 2)
        }
        let fill = Int64((product * bandwidthDelayMultiple + rate * extraWait).rounded())
        // Over HTTP/2 the next piece is asked for when the reader comes within a product of the current one's
        // end: with a window of 1.5 pieces, as below, a read's second piece would go out as it starts, 512 KiB
        // more per seek.
        if link.multiplexed { return (fill, piece) }
        return (max(fill, piece + piece / 2), piece)
    }

    /// `bandwidthDelayMultiple` bandwidth-delay products of `link` at its planned rate; `nil` before a round trip
    /// is measured.
    func bandwidthDelayProduct(_ link: LinkEstimate) -> Int64? {
        link.roundTrip.map { Int64((plannedRate(link) * $0 * bandwidthDelayMultiple).rounded()) }
    }

    /// The rate, in bytes per second, a read plans its requests for over `link`: the measured one
    /// (`assumedBytesPerSecond` before any), at most `sufficientBytesPerSecond`.
    func plannedRate(_ link: LinkEstimate) -> Double {
        min(link.bytesPerSecond ?? assumedBytesPerSecond, sufficientBytesPerSecond)
    }

    /// The smallest piece a read asks for over `link`: a quarter of the link's bandwidth-delay product (half a
    /// first request before a round trip is measured), at least what arrives in a request's cost.
    func smallestPiece(_ link: LinkEstimate) -> Int64 {
        // A single response's delivery rate is a lower bound of the link's, known after one response, so
        // a fast link's pieces grow from the first few requests on rather than after megabytes.
        var worthARequest: Int64 = 0
        if let rate = [link.bytesPerSecond, link.deliveryBytesPerSecond].compactMap({ $0 }).max() {
            worthARequest = min(Self.requestCostPieceLimit, Int64((rate * Self.requestCost).rounded()))
        }
        let rate = plannedRate(link)
        let base = link.roundTrip.map { Int64((rate * $0 / 4).rounded()) } ?? firstRequestSize / 2
        return min(maximumPieceSize, max(initialPieceSize, base, worthARequest))
    }

    /// The least a request runs ahead of its farthest reader before it is held back (`readAheadOfReaders`).
    static let minimumReadAhead: Int64 = 256 * 1024

    /// How far a request may store ahead of its farthest reader before it holds its body back, when the origin's
    /// bodies pause while unread (`EngineState.Hold.aheadOfReaders`): `bandwidthDelayMultiple` link products,
    /// at least `minimumReadAhead`. It goes on once a reader comes within half of that, so the link refills
    /// what the reader takes before it runs out: a product is what arrives in the round trip a resumed body
    /// waits for (the window update, the sender's next bytes), and the sockets hold more besides. So a read
    /// left at any moment has wasted at most this plus what the sockets hold (the kernel's receive and send
    /// buffers, or over HTTP/2 the stream's window).
    func readAheadOfReaders(_ link: LinkEstimate) -> Int64 {
        let rate = plannedRate(link)
        let product = rate * (link.roundTrip ?? 0) * bandwidthDelayMultiple
        return max(Self.minimumReadAhead, Int64(product.rounded()))
    }

    /// How much a request a player abandoned may still have to deliver and run to its end rather than be held
    /// and then closed, over `link`: over HTTP/1.1 closing is all that stops a response, and the player's next
    /// read (a seek) then waits for a new connection's handshakes, while what the sockets and the link hold
    /// crosses the link either way. So a request no more than a first request's size (a seek's first piece), or
    /// a bandwidth-delay product and the handshakes' worth of the link, from its end finishes, and its
    /// connection takes a later read at once. 0 where the link multiplexes (a stream ends alone), where bodies
    /// do not pause (they arrive whole anyway) and before a round trip is measured. Measured over HTTPS on the
    /// bench's links (20-seek session, medians of 5): on mobile 0.67 x direct's time and 0.73 x its link bytes
    /// on 7 connections, 0.83 and 0.82 on 21 with none; on broadband 0.64 and 0.68 (0.82, 0.76). The product and
    /// handshakes alone (225 KB on broadband) left most pieces to be closed: 16 connections, 0.78 x the time.
    func abandonedRunsOnWithin(_ link: LinkEstimate) -> Int64 {
        guard link.pausesWhileUnread, !link.multiplexed, let roundTrip = link.roundTrip else { return 0 }
        let rate = plannedRate(link)
        let handshakes = link.connectionSetup ?? roundTrip
        let product = Int64((rate * (roundTrip * bandwidthDelayMultiple + handshakes)).rounded())
        return max(firstRequestSize, product)
    }

    /// Whether a request that failed with `error`, after `failuresInARow` failures without a byte in between,
    /// is tried again: a transient failure up to `retryLimit` times, and one that says the link went silent
    /// (`SpoolError.timedOut`: a stall, no answer) for as long as the silence is shorter than `outageTolerance`.
    func retries(after error: any Error, failuresInARow: Int, silentFor silence: TimeInterval) -> Bool {
        guard let failure = error as? SpoolError, failure.isTransient else { return false }
        return failuresInARow <= retryLimit || (failure.isTimeout && silence < outageTolerance)
    }

    /// The longest `Retry-After` a request waits for before it is sent again: 2 s, a moment a player rides out
    /// on its buffer. A longer one ends the read with the origin's status (a player acts on it; the transfer
    /// scheduler holds the host back that long).
    var longestRetryAfter: TimeInterval { 2 }

    /// The wait before a request a `429` without `Retry-After` refused is sent again: 1 s, not the tenth of a
    /// second a broken connection gets, since the origin said it gets too many.
    var retryAfterWithoutField: TimeInterval { 1 }

    /// The wait before retry number `attempt` (1 for the first).
    func retryWait(attempt: Int) -> TimeInterval {
        min(maximumRetryDelay, retryDelay * Double(1 << min(max(0, attempt - 1), 20)))
    }
}
