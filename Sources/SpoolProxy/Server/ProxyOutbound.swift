import NIOCore
import NIOHTTP1
import Spool

/// A connection's outbound side, with a bound on the body bytes waiting in memory.
///
/// NIO's async writer takes parts while the channel says it is writable, but it learns that the channel no
/// longer is only when the event loop has run the writes queued so far. A producer reading from the cache
/// (gigabytes a second) got 100 chunks of 256 KiB ahead of the event loop that way, 25 MB for one client.
/// So a body chunk is written only once the event loop has taken the one before: that bounds the bytes in
/// memory to about two chunks and the channel's own buffer, and the wait overlaps the next chunk's read.
///
/// Stored bytes the cache lends as file slices go out as file regions (`sendfile`): they take no memory and
/// pass through no copy; `slices` releases each once the socket has taken it.
final class ProxyOutbound: Sendable {
    private let writer: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    private let channel: any Channel
    private var eventLoop: any EventLoop { channel.eventLoop }
    private let slices: UnsentSlices
    /// Completes when the event loop has taken the last body chunk written.
    private let taken = LockedBox<EventLoopFuture<Void>?>(nil)

    init(writer: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>, channel: any Channel, slices: UnsentSlices) {
        self.writer = writer
        self.channel = channel
        self.slices = slices
    }

    /// What the cache calls when a slice it lent must come back before it is sent: the connection closes,
    /// so no byte of it goes out, and the client sees a short body (as when any read fails mid-body).
    var revokeSlice: @Sendable () -> Void {
        { [channel] in channel.close(promise: nil) }
    }

    /// A part of a read as a body part: bytes in a buffer, or a slice as a file region.
    func body(_ part: StreamPart) throws -> IOData {
        switch part {
        case .bytes(let data): return .byteBuffer(ByteBuffer(bytes: data))
        case .file(let slice): return .fileRegion(try slices.region(for: slice))
        }
    }

    /// Writes a response part.
    func write(_ part: HTTPServerResponsePart) async throws {
        try await writer.write(part)
    }

    /// Writes several parts at once: one trip to the event loop and one flush, for a small response.
    func write(contentsOf parts: [HTTPServerResponsePart]) async throws {
        try await writer.write(contentsOf: parts)
    }

    /// Writes a part of a read once the event loop has taken the previous one: the writer suspends while the
    /// client's socket is full, so memory stays at a few chunks per client.
    func writeBody(_ part: StreamPart) async throws {
        try await writeBody(try body(part))
    }

    /// Writes a body part once the event loop has taken the previous one.
    func writeBody(_ data: IOData) async throws {
        if let previous = taken.withLock({ future in
            defer { future = nil }
            return future
        }) {
            try await previous.get()
        }
        try await writer.write(.body(data))
        // Runs after the event loop has handed the chunk to the channel, which by then has told the writer
        // whether it takes more.
        let marker = eventLoop.submit {}
        taken.withLock { $0 = marker }
    }
}
