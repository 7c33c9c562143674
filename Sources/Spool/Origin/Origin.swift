import Foundation

/// Where the bytes of a resource come from: an HTTP server, or anything else that can tell a resource's size
/// and read a byte range of it (a cloud SDK with a "stat" call and a ranged download, for instance).
///
/// The engine calls an origin only for bytes it does not have, and never reads a response body it did not
/// ask for: it cancels the body (by ending its iteration) as soon as it has what it needs.
public protocol Origin: Sendable {
    /// The size, type and version of the resource at `url`.
    func contentInfo(for url: URL) async throws -> ContentInfo

    /// Starts reading `request.range` of the resource at `request.url`.
    ///
    /// Return as soon as the response has begun; the bytes arrive through the response's body. An origin
    /// that cannot read ranges may answer with the whole resource (`offset` 0): the engine skips to what
    /// it needs. When `request.validator` no longer matches the resource, answer with the current version
    /// (and its `info`) rather than a range of it, as HTTP's `If-Range` does.
    func read(_ request: OriginReadRequest) async throws -> OriginReadResponse

    /// Whether `read` may be called before the resource's length is known, with a range that may run past
    /// its end: the response then carries the content information (and `rangeNotSatisfiable` the length
    /// when the range starts past the end). The engine then learns about a resource from its first read,
    /// saving `contentInfo`'s round trip. `false` unless an origin says otherwise.
    var canReadBeforeContentInfo: Bool { get }

    /// Whether `read`'s bodies stop their transfer while nobody iterates them
    /// (`OriginReadResponse.pausesWhileUnread`), known before any read. The engine then asks for a read's rest in
    /// one request, as a player does, and holds the body back once it is far enough ahead of its reader: the
    /// transfer waits in the sockets instead of running on into the cache. Otherwise it asks in pieces, so that
    /// a read left early does not leave a long transfer running. `false` unless an origin says otherwise.
    var readsPauseWhileUnread: Bool { get }
}

extension Origin {
    /// Origins read only within the length `contentInfo` gave, unless they say otherwise.
    public var canReadBeforeContentInfo: Bool { false }

    /// Bodies keep arriving while unread, unless an origin says otherwise.
    public var readsPauseWhileUnread: Bool { false }
}

/// A request for a byte range of a resource.
public struct OriginReadRequest: Sendable, Hashable {
    /// The resource.
    public var url: URL
    /// The bytes wanted, within the resource's length.
    public var range: Range<Int64>
    /// The version the engine already holds bytes of (`ContentInfo.rangeValidator`); `nil` when it holds none.
    public var validator: String?
    /// The Common Media Client Data the request carries (`ClientDataPolicy`): the player's it serves, or
    /// Spool's own label of a fetch ahead of playback. `HTTPOrigin` sends it; other origins may ignore it.
    public var clientData: CommonMediaClientData?

    /// A request for `range` of the resource at `url`, carrying `clientData`.
    public init(
        url: URL, range: Range<Int64>, validator: String? = nil, clientData: CommonMediaClientData? = nil
    ) {
        self.url = url
        self.range = range
        self.validator = validator
        self.clientData = clientData
    }
}

/// The start of an origin's answer to a read.
public struct OriginReadResponse: Sendable {
    /// The resource offset of the body's first byte: the requested lower bound, or 0 for a whole-body answer.
    public var offset: Int64
    /// The resource as the origin described it in this response; its version decides whether cached bytes
    /// may be combined with these.
    public var info: ContentInfo
    /// The body, in order, from `offset`. It ends after the last byte the origin means to send; ending the
    /// iteration early cancels the transfer.
    public var body: AsyncThrowingStream<Data, any Error>
    /// Whether the transfer stops while nobody iterates `body`, so that the engine can hold a request back
    /// (for playback elsewhere, or for a player that hung up and may come back) without it holding
    /// bandwidth. Otherwise the bytes keep arriving, and the engine stores them instead of holding them in
    /// memory.
    public var pausesWhileUnread: Bool
    /// Whether the response came over a connection that carries several requests at once (HTTP/2 or
    /// HTTP/3): a new request then costs no handshake, but its stream starts with `initialStreamWindow`.
    /// `false` when the origin cannot tell.
    public var multiplexed: Bool
    /// With `multiplexed`, the flow-control window a new stream on that connection starts with: what the
    /// server sends before the client's first window update, a round trip later.
    public var initialStreamWindow: Int64

    /// HTTP/2's initial flow-control window of a stream (RFC 9113 §6.9.2).
    public static let defaultStreamWindow: Int64 = 65_535

    /// A response whose body starts at `offset`.
    public init(
        offset: Int64, info: ContentInfo, body: AsyncThrowingStream<Data, any Error>, pausesWhileUnread: Bool = false,
        multiplexed: Bool = false, initialStreamWindow: Int64 = OriginReadResponse.defaultStreamWindow
    ) {
        self.offset = offset
        self.info = info
        self.body = body
        self.pausesWhileUnread = pausesWhileUnread
        self.multiplexed = multiplexed
        self.initialStreamWindow = initialStreamWindow
    }
}
