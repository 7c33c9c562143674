import NIOCore
import NIOHTTP1

/// A connection's outbound side, with a bound on the body bytes waiting in memory.
///
/// NIO's async writer takes parts while the channel says it is writable, but it learns that the channel no
/// longer is only when the event loop has run the writes queued so far. A producer reading from the cache
/// (gigabytes a second) got 100 chunks of 256 KiB ahead of the event loop that way, 25 MB for one client.
/// Waiting for the event loop after each body chunk keeps that to the chunk and the channel's own buffer.
struct ProxyOutbound: Sendable {
    let writer: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    let eventLoop: any EventLoop

    /// Writes a response part.
    func write(_ part: HTTPServerResponsePart) async throws {
        try await writer.write(part)
    }

    /// Writes a body chunk; returns once the event loop has handed it to the channel, which by then has
    /// told the writer whether it takes more.
    func writeBody(_ buffer: ByteBuffer) async throws {
        try await writer.write(.body(.byteBuffer(buffer)))
        try await eventLoop.submit {}.get()
    }
}
