import Foundation

/// One direction of one relayed connection: reads from `source`, holds each chunk until the emulated link
/// would deliver it, then writes it to `destination`.
///
/// A single thread both reads and writes, waiting in `poll` for whichever comes first: the source being
/// readable (only while the window has room) or the next chunk falling due. So the queue and the window
/// need no lock; only the shared link and counters do.
struct LinkPipe {
    /// Which way the bytes go; the raw value indexes the shared link's per-direction state.
    enum Direction: Int {
        case toUpstream = 0
        case toClient = 1
    }

    /// Bytes read from the source and when they arrive at the destination; an empty chunk is the end of stream.
    private struct Chunk {
        var bytes: [UInt8]
        let due: UInt64
    }

    let core: LinkCore
    let index: Int
    let direction: Direction
    let source: Int32
    let destination: Int32

    /// Small enough that the shared cap stays smooth across connections.
    static let chunkLimit = 16 * 1024

    func run() {
        let profile = core.profile
        let halfTrip = LinkClock.nanoseconds(profile.roundTrip / 2)
        var queue: [Chunk] = []
        var head = 0
        var sentOfHead = 0
        var inFlight = 0
        var sourceOpen = true
        var lastDue: UInt64 = 0

        while true {
            guard canMove() else { return }
            let now = LinkClock.now()
            let next = head < queue.count ? queue[head] : nil
            if let next, next.due <= now, next.bytes.isEmpty {
                // The sender's end of stream, delivered in order after its last byte.
                POSIXSocket.shutdownWrite(destination)
                return
            }
            let headDue = next.map { $0.due <= now } ?? false
            let wantRead = sourceOpen && inFlight < profile.window
            var timeout = LinkCore.slice
            if let next, !headDue {
                let wait = next.due - now
                // poll counts whole milliseconds; the last fraction is slept precisely instead.
                if wait < 1_000_000 {
                    LinkClock.sleep(wait)
                    continue
                }
                timeout = min(timeout, wait)
            }
            let ready = POSIXSocket.wait(
                readable: wantRead ? source : nil, writable: headDue ? destination : nil,
                milliseconds: LinkClock.milliseconds(timeout)
            )
            // A fault may have begun while waiting; it must stop this byte too.
            guard ready.readable || ready.writable, canMove() else { continue }

            if ready.writable, let next {
                guard let written = POSIXSocket.sendNow(destination, next.bytes, from: sentOfHead) else {
                    core.abort(index, reset: true)
                    return
                }
                sentOfHead += written
                core.count(delivered: written, direction: direction)
                if sentOfHead == next.bytes.count {
                    inFlight -= next.bytes.count
                    head += 1
                    sentOfHead = 0
                    if head > 64 {
                        queue.removeFirst(head)
                        head = 0
                    }
                }
            }
            if ready.readable {
                let limit = min(Self.chunkLimit, profile.window - inFlight)
                switch POSIXSocket.receiveNow(source, limit: limit) {
                case .bytes(let bytes):
                    let due = core.take(bytes.count, direction: direction, now: LinkClock.now()) + halfTrip
                    lastDue = max(lastDue, due)
                    queue.append(Chunk(bytes: bytes, due: lastDue))
                    inFlight += bytes.count
                case .end:
                    sourceOpen = false
                    lastDue = max(lastDue, LinkClock.now() + halfTrip)
                    queue.append(Chunk(bytes: [], due: lastDue))
                case .failed:
                    core.abort(index, reset: true)
                    return
                case .nothingYet:
                    break
                }
            }
        }
    }

    /// Waits out blackouts and stalls; false once the connection must end.
    private func canMove() -> Bool {
        while true {
            switch core.gate(index) {
            case .go: return true
            case .quit: return false
            case .hold(let nanoseconds): LinkClock.sleep(nanoseconds)
            }
        }
    }
}
