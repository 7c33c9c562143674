import Foundation

/// Misbehaviours a `TestOrigin` can be switched into, to exercise a client's error handling.
///
/// A request uses the behaviour in force when it arrives; changing it never affects a response
/// already being written.
public struct TestOriginBehaviour: Sendable, Equatable {
    /// Answer every GET with 200 and the full body, and stop advertising `Accept-Ranges`.
    public var ignoresRange = false
    /// Answer HEAD with 405.
    public var refusesHead = false
    /// Answer a request for PATH with 302 to `/__redirected__PATH`, which serves the same content.
    public var redirect = false
    /// With `redirect`, name this host in `Location` (with the origin's port) instead of the one the request
    /// was sent to: "localhost" for a request to 127.0.0.1 is a redirect to another host, same server.
    public var redirectHost: String? = nil
    /// Answer every request with 302 to the very same URL, for ever.
    public var redirectsToItself = false
    /// Wait this long after a request before answering it, as a server that has stopped responding does.
    public var answerDelay: TimeInterval? = nil
    /// Send this many bytes of a content body, then nothing more, keeping the connection open.
    public var stallAfterBytes: Int64? = nil
    /// Close the connection after this many body bytes of a content response.
    public var dropConnectionAfterBytes: Int64? = nil
    /// Pace content body writes to about this many bytes per second.
    public var throttleBytesPerSecond: Int? = nil
    /// Answer every request with this status (e.g. 503) and a short text body.
    public var serverErrorStatus: Int? = nil
    /// Header fields sent with `serverErrorStatus` (`Retry-After`, `WWW-Authenticate`).
    public var serverErrorFields: [String: String] = [:]
    /// Send header names lower-cased ("content-range: ..."), which clients must accept.
    public var lowercaseHeaderNames = false
    /// Send no `Content-Length`; the body ends when the connection closes.
    public var omitsContentLength = false
    /// Announce the normal `Content-Length` but send this many fewer body bytes, then close.
    public var shortBodyBy: Int64? = nil
    /// Allow at most this many requests in any second (a sliding window, as rate-limiting gateways count): one
    /// more is answered `429` with `Retry-After: 1`, and does not count. `nil`: no limit.
    public var requestsPerSecond: Int? = nil
    /// The kernel send buffer of connections accepted from now on (`SO_SNDBUF`), so that what the origin
    /// counts as sent is about what left it: loopback's autotuned buffers take megabytes that a slower link
    /// behind them (`LinkEmulator`) never carries. `nil`: the kernel's default.
    public var sendBufferBytes: Int? = nil

    /// A well-behaved origin.
    public init() {}
}
