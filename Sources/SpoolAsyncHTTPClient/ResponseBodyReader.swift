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
    /// The request's URL, for the words of a failure.
    private let url: URL

    init(_ body: HTTPClientResponse.Body, url: URL, keepingAlive owner: AnyObject) {
        iterator = body.makeAsyncIterator()
        self.url = url
        self.owner = owner
    }

    /// The next bytes, `nil` at the end of the body.
    func next() async throws -> Data? {
        do {
            while let buffer = try await iterator.next() {
                guard buffer.readableBytes > 0 else { continue }
                return Self.data(sharing: buffer)
            }
            return nil
        } catch {
            throw TransportErrors.spoolError(error, url: url)
        }
    }

    /// The buffer's readable bytes as `Data` that shares the buffer's storage when the bytes fill most of it,
    /// and a copy otherwise. Copying every chunk of a cold read took 3 % of the proxy's CPU; sharing a
    /// storage whose bytes are a small part of it would keep its whole capacity alive while the chunk waits
    /// for the disk.
    static func data(sharing buffer: ByteBuffer) -> Data {
        guard buffer.readableBytes * 2 >= buffer.capacity else {
            return buffer.withUnsafeReadableBytes { Data($0) }
        }
        return buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            guard let base = bytes.baseAddress else { return Data() }
            // The retain makes the storage shared, so NIO copies before it writes into it again; the
            // deallocator gives it back once the last `Data` sharing it is gone.
            let owned = storage.retain()
            return Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count,
                deallocator: .custom { _, _ in owned.release() })
        }
    }
}
