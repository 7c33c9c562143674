import NIOCore
import NIOHTTP1

/// Answers that refuse a request: a status and a one-line reason (`FailureResponse`).
extension ProxyResponder {
    /// Answers `head` with `failure` without looking at it further, and asks to close the connection: for a
    /// request the server stopped reading (a body over its limit).
    func refuse(_ head: HTTPRequestHead, with failure: FailureResponse, writer: Writer) async throws {
        // Never the path: a proxy URL's proof is not for the log.
        var record = ProxyLogRecord(
            method: head.method.rawValue, target: "(refused)", range: nil, status: 0, bodyBytes: 0, failure: nil)
        defer { configuration.log?(record) }
        try await send(failure, to: head, keepAlive: false, writer: writer, record: &record)
    }

    func send(
        _ failure: FailureResponse, to head: HTTPRequestHead, keepAlive: Bool, writer: Writer,
        record: inout ProxyLogRecord
    ) async throws {
        record.status = failure.status
        record.failure = failure.reason
        _ = try await sendWhole(
            ByteBuffer(string: failure.body), status: failure.status, type: "text/plain; charset=utf-8",
            extraFields: failure.headers, head: head, isHead: head.method == .HEAD, keepAlive: keepAlive,
            writer: writer)
    }
}
