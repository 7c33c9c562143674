import Foundation

/// One request a `TestOrigin` received, and what it answered.
public struct RecordedRequest: Sendable {
    /// The request method, e.g. "GET".
    public var method: String
    /// The request path without its query, e.g. "/media/song.mp3".
    public var path: String
    /// Request header fields, names lower-cased.
    public var headers: [String: String]
    /// When the request head was fully received.
    public var time: Date
    /// The `Range` header value, if any.
    public var range: String?
    /// The status sent, or 0 if the connection failed before a response went out.
    public var responseStatus: Int
    /// Response body bytes written to the socket for this request.
    public var bodyBytesSent: Int64

    /// Creates a record; the origin fills in status and byte counts as it answers.
    public init(
        method: String,
        path: String,
        headers: [String: String],
        time: Date,
        range: String? = nil,
        responseStatus: Int = 0,
        bodyBytesSent: Int64 = 0
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.time = time
        self.range = range
        self.responseStatus = responseStatus
        self.bodyBytesSent = bodyBytesSent
    }
}
