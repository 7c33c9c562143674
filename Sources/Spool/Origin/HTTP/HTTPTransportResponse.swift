import Foundation

/// The start of an HTTP response as a transport delivers it: status, head and the URL that answered, then
/// the body as it arrives.
public struct HTTPTransportResponse: Sendable {
    /// The status code (200, 206, 302, 416, ...).
    public var status: Int
    /// The URL that answered: the request's, unless the transport followed redirects itself.
    public var url: URL
    /// The body, in order. It ends after the last byte; ending its iteration early, or dropping it,
    /// cancels the transfer.
    public var body: AsyncThrowingStream<Data, any Error>
    /// Whether the response came over a connection that carries several requests at once (HTTP/2 or
    /// HTTP/3): the engine then sizes what it keeps in flight for streams, not for connections. `false` when
    /// the transport cannot tell.
    public var multiplexed: Bool
    /// Header values by lower-cased name: servers send `content-range` as readily as `Content-Range`.
    let fields: [String: String]

    /// A response with `headerFields` by name in any case. Give a field sent more than once as its values
    /// joined with ", " (RFC 9110, 5.3); names that differ only in case are joined the same way.
    public init(
        status: Int, url: URL, headerFields: [String: String], body: AsyncThrowingStream<Data, any Error>,
        multiplexed: Bool = false
    ) {
        self.status = status
        self.url = url
        self.body = body
        self.multiplexed = multiplexed
        var lowered: [String: String] = [:]
        for (name, value) in headerFields {
            let key = name.lowercased()
            lowered[key] = lowered[key].map { "\($0), \(value)" } ?? value
        }
        fields = lowered
    }

    /// The value of the header field `name`, whatever the case either side uses; `nil` when absent.
    public func value(forHTTPHeaderField name: String) -> String? {
        fields[name.lowercased()]
    }
}
