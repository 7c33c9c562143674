import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A connection's outbound side, with a bound on the body bytes waiting in memory.
///
/// NIO's async writer takes parts while the channel says it is writable, but it learns that the channel no
/// longer is only when the event loop has run the writes queued so far. A producer reading from the cache
/// (gigabytes a second) got 100 chunks of 256 KiB ahead of the event loop that way, 25 MB for one client.
/// So a body chunk is written only once the event loop has taken the one before: that bounds the bytes in
/// memory to about two chunks and the channel's own buffer, and the wait overlaps the next chunk's read.
final class ProxyOutbound: Sendable {
    private let writer: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    private let eventLoop: any EventLoop
    /// Completes when the event loop has taken the last body chunk written.
    private let taken = NIOLockedValueBox<EventLoopFuture<Void>?>(nil)

    init(writer: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, eventLoop: any EventLoop) {
        self.writer = writer
        self.eventLoop = eventLoop
    }

    /// Writes a response part.
    func write(_ part: HTTPServerResponsePart) async throws {
        try await writer.write(part)
    }

    /// Writes several parts at once: one trip to the event loop and one flush, for a small response.
    func write(contentsOf parts: [HTTPServerResponsePart]) async throws {
        try await writer.write(contentsOf: parts)
    }

    /// Writes a body chunk once the event loop has taken the previous one.
    func writeBody(_ buffer: ByteBuffer) async throws {
        if let previous = taken.withLockedValue({ future in
            defer { future = nil }
            return future
        }) {
            try await previous.get()
        }
        try await writer.write(.body(.byteBuffer(buffer)))
        // Runs after the event loop has handed the chunk to the channel, which by then has told the writer
        // whether it takes more.
        let marker = eventLoop.submit {}
        taken.withLockedValue { $0 = marker }
    }
}
