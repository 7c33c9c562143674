import Foundation

/// The bytes of a read, in order and without gaps, as an asynchronous sequence of chunks.
///
/// Chunks come from disk where the bytes are cached and from the origin, as they arrive, where they are not.
/// Nothing is fetched before the first `next()`, and nothing runs ahead of the consumer by more than the
/// request the engine keeps in flight: a slow consumer holds no growing buffer. Ending the iteration, or
/// cancelling the task that iterates, stops the origin requests no other reader needs; what they received
/// stays cached.
public typealias ByteStream = AsyncThrowingStream<Data, any Error>

extension AsyncThrowingStream where Element == Data, Failure == any Error {
    /// The chunks of the session `open` opens at the first `next()`: a stream that is never iterated holds
    /// nothing, and one dropped unfinished ends its session (and its reader) with it.
    init(opening open: @escaping @Sendable () async throws -> ReadSession) {
        let lazy = LazyReadSession(open: open)
        self.init(unfolding: { try await lazy.next() })
    }
}

/// A read session opened at its first `next()`.
///
/// `@unchecked Sendable`: `AsyncThrowingStream(unfolding:)` calls `next()` one call at a time, from the task
/// that iterates, as `ReadSession` requires.
private final class LazyReadSession: @unchecked Sendable {
    private let open: @Sendable () async throws -> ReadSession
    private var session: ReadSession?
    /// Whether opening failed: the read has ended with that error.
    private var failedToOpen = false

    init(open: @escaping @Sendable () async throws -> ReadSession) {
        self.open = open
    }

    deinit {
        // The session goes first, while `open` still holds its cache: the cache takes the engine back on its
        // own queue, where a session that outlived its cache would close it on this thread.
        session = nil
    }

    func next() async throws -> Data? {
        guard !failedToOpen else { return nil }
        if session == nil {
            do {
                session = try await open()
            } catch {
                failedToOpen = true
                throw error
            }
        }
        return try await session?.next()
    }
}
