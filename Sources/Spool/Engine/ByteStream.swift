import Foundation

/// The bytes of a read, in order and without gaps, as an asynchronous sequence of chunks.
///
/// Chunks come from disk where the bytes are cached and from the origin, as they arrive, where they are not.
/// Nothing is fetched before the first `next()`, and nothing runs ahead of the consumer by more than the
/// request the engine keeps in flight: a slow consumer holds no growing buffer. Ending the iteration, or
/// cancelling the task that iterates, stops the origin requests no other reader needs; what they received
/// stays cached.
public struct ByteStream: AsyncSequence, Sendable {
    /// A chunk of bytes.
    public typealias Element = Data

    /// Opens the read's session: a stream that is never iterated holds nothing.
    fileprivate let open: @Sendable () async throws -> ReadSession

    init(open: @escaping @Sendable () async throws -> ReadSession) {
        self.open = open
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> Iterator {
        Iterator(open: open)
    }

    /// Produces the chunks of a `ByteStream`.
    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let open: @Sendable () async throws -> ReadSession
        fileprivate var session: ReadSession?
        /// Whether opening failed: the read has ended with that error.
        fileprivate var failedToOpen = false

        /// The next chunk, or `nil` after the last byte.
        public mutating func next() async throws -> Data? {
            try await opened()?.next()
        }

        /// The next part (see `ReadSession.nextPart(revoke:)`).
        package mutating func nextPart(revoke: (@Sendable () -> Void)?) async throws -> StreamPart? {
            try await opened()?.nextPart(revoke: revoke)
        }

        /// The session, opened at the first call; `nil` once opening failed (the read ended with that error).
        private mutating func opened() async throws -> ReadSession? {
            guard !failedToOpen else { return nil }
            if session == nil {
                do {
                    session = try await open()
                } catch {
                    failedToOpen = true
                    throw error
                }
            }
            return session
        }
    }
}
