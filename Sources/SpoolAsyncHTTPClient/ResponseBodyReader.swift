import AsyncHTTPClient
import Foundation
import NIOCore

/// Pulls an AsyncHTTPClient response body on demand, one buffer per call, as `Data`.
///
/// Pulling is what keeps AsyncHTTPClient's backpressure: it reads the socket again only once the buffer it
/// holds has been taken. Releasing the reader (when the stream around it ends or is dropped) releases the
/// body's iterator, which cancels the request and closes its connection.
final class ResponseBodyReader: @unchecked Sendable {
    // @unchecked: the iterator is touched only by `next()`, and the stream around the reader calls that
    // from one consumer at a time.
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    /// Held so the client outlives every body it delivers.
    private let owner: AnyObject

    init(_ body: HTTPClientResponse.Body, keepingAlive owner: AnyObject) {
        iterator = body.makeAsyncIterator()
        self.owner = owner
    }

    /// The next bytes, copied once out of the network buffer; `nil` at the end of the body.
    func next() async throws -> Data? {
        do {
            while let buffer = try await iterator.next() {
                guard buffer.readableBytes > 0 else { continue }
                return buffer.withUnsafeReadableBytes { Data($0) }
            }
            return nil
        } catch {
            throw TransportErrors.spoolError(error)
        }
    }
}
