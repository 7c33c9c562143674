import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Sends one HTTP request and hands back the response as soon as its head has arrived: all that
/// `HTTPOrigin` needs from an HTTP client. `HTTPOrigin` keeps the HTTP semantics (ranges, validators,
/// redirects, where credentials may go); a transport only moves bytes, so a client other than URLSession
/// (AsyncHTTPClient, in the `SpoolAsyncHTTPClient` library) can carry the same requests.
///
/// A transport should not follow redirects: it returns a 3xx response as it is, so that `HTTPOrigin`'s one
/// policy applies whatever the client (bounded hops, the same range on every hop, credentials only to the
/// resource's own host). One that follows them anyway must report the URL that finally answered.
/// It must neither cache nor decompress: the origin asks for byte ranges of the stored representation.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response head has arrived; the body follows in the response.
    ///
    /// `request.timeoutInterval` bounds the wait for the head and then for each next byte of the body,
    /// not the whole transfer. Failures are `SpoolError.timedOut` when that wait runs out,
    /// `SpoolError.network` when the server cannot be reached or the transfer breaks off, and
    /// `CancellationError` when the calling task is cancelled before the head arrives.
    ///
    /// The engine reads a body only as fast as it stores it, and stops reading (ending the iteration or
    /// dropping the stream) as soon as it has what it needs: the transfer must then stop promptly, and a
    /// transport that can should hold back the network while the reader is slower than it.
    func send(_ request: URLRequest) async throws -> HTTPTransportResponse

    /// Whether a body nobody iterates stops its transfer (the transport reads the socket only when asked
    /// for the next chunk), so that a request the engine holds back holds no bandwidth. `false` unless a
    /// transport says otherwise: its bodies keep arriving into memory, and the engine then stores them
    /// rather than holding them back (see `OriginReadResponse.pausesWhileUnread`).
    var pausesUnreadBodies: Bool { get }

    /// The flow-control window, in bytes, that a new HTTP/2 stream starts with, as the transport
    /// advertises it: what the server sends of a response before the client's first window update, which
    /// comes a round trip later. HTTP/2's default (65,535) unless a transport says otherwise; the engine
    /// sizes what it keeps in flight over multiplexed connections with it.
    var initialStreamWindow: Int64 { get }
}

extension HTTPTransport {
    /// Transports buffer what arrives unless they say otherwise.
    public var pausesUnreadBodies: Bool { false }

    /// HTTP/2's initial stream window (RFC 9113 §6.9.2), unless a transport says otherwise.
    public var initialStreamWindow: Int64 { OriginReadResponse.defaultStreamWindow }
}
