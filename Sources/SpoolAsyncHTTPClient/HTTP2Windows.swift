import NIOCore
import NIOHTTP2
import Spool

/// Opens an HTTP/2 connection's receive windows to the size AsyncHTTPClient grows them to, as soon as the
/// connection is up, instead of one round trip after each stream's first bytes.
///
/// AsyncHTTPClient advertises HTTP/2's default 64 KiB initial window and raises a stream's window to 8 MiB
/// only once its first bytes arrive (and the connection's likewise). A full window reaches the server a round
/// trip after it began to answer, so every new stream delivers at most 64 KiB in its first round trip. The
/// engine reads a long body as a series of range requests, a new stream each, and over a 40 ms, 40 Mbit/s
/// link a full read over HTTP/2 got 0.86 of direct's throughput, each 240 KiB piece taking 140 ms instead of
/// about 90. Browsers and curl advertise windows of megabytes from the start.
///
/// What a larger window lets in is still bounded by each request's range: the engine asks for ranges, so an
/// abandoned request costs no more than before.
enum HTTP2Windows {
    /// The receive window of a stream and of the connection: AsyncHTTPClient's own target.
    static let size = 8 * 1024 * 1024

    /// Writes, on the connection `channel` (its `NIOHTTP2Handler` in the pipeline), the settings that give new
    /// streams a `size` window, and a window update that gives the connection one.
    static func open(on channel: any Channel) -> EventLoopFuture<Void> {
        let settings = HTTP2Frame(
            streamID: .rootStream,
            payload: .settings(.settings([HTTP2Setting(parameter: .initialWindowSize, value: size)])))
        // A connection's window starts at a stream's default, and settings cannot change it (RFC 9113 §6.9.2).
        let connection = HTTP2Frame(
            streamID: .rootStream,
            payload: .windowUpdate(windowSizeIncrement: size - Int(OriginReadResponse.defaultStreamWindow)))
        channel.write(settings, promise: nil)
        return channel.writeAndFlush(connection)
    }
}
