import NIOCore
import NIOHTTP1

/// Answers that refuse a request: a status and a one-line reason (`FailureResponse`).
extension ProxyResponder {
    /// Answers `head` with `failure` without looking at it further, and asks to close the connection: for a
    /// request the server stopped reading (a body over its limit).
    func refuse(_ head: HTTPRequestHead, with failure: FailureResponse, writer: Writer) async throws {
        var record = ProxyLogRecord(
            method: head.method.rawValue, target: String(head.uri.prefix { $0 != "?" }.prefix(64)), range: nil,
            status: 0, bodyBytes: 0, failure: nil)
        defer { configuration.log?(record) }
        try await send(failure, to: head, keepAlive: false, writer: writer, record: &record)
    }

    func send(
        _ failure: FailureResponse, to head: HTTPRequestHead, keepAlive: Bool, writer: Writer,
        record: inout ProxyLogRecord
    ) async throws {
        record.status = failure.status
        record.failure = failure.reason
        let body = ByteBuffer(string: failure.body)
        let fields =
            failure.headers + [
                HeaderField("Content-Type", "text/plain; charset=utf-8"),
                HeaderField("Content-Length", "\(body.readableBytes)"),
                HeaderField("Cache-Control", "no-store"),
            ]
        _ = try await sendWhole(
            body, status: failure.status, fields: fields, head: head, isHead: head.method == .HEAD,
            keepAlive: keepAlive, writer: writer)
    }
}
