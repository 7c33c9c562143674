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

    fileprivate let loader: ResourceLoader
    fileprivate let offset: Int64
    fileprivate let length: Int64?
    fileprivate let priority: ReadPriority
    fileprivate let gate: PlaybackGate
    fileprivate let release: @Sendable (ResourceLoader) -> Void

    init(
        loader: ResourceLoader, offset: Int64, length: Int64?, priority: ReadPriority, gate: PlaybackGate,
        release: @escaping @Sendable (ResourceLoader) -> Void
    ) {
        self.loader = loader
        self.offset = offset
        self.length = length
        self.priority = priority
        self.gate = gate
        self.release = release
    }

    /// Starts iterating.
    public func makeAsyncIterator() -> Iterator {
        Iterator(session: ReadSession(self))
    }

    /// Produces the chunks of a `ByteStream`.
    public struct Iterator: AsyncIteratorProtocol {
        fileprivate let session: ReadSession

        /// The next chunk, or `nil` after the last byte.
        public mutating func next() async throws -> Data? {
            try await session.next()
        }
    }
}

/// One iteration of a `ByteStream`: registers as a reader on first use, unregisters when done or dropped.
private final class ReadSession: @unchecked Sendable {
    private let stream: ByteStream
    private var loader: ResourceLoader { stream.loader }
    // Only touched by the task iterating, one `next()` at a time, as AsyncIteratorProtocol requires.
    private var reader: Int?
    private var position: Int64
    private var done = false

    init(_ stream: ByteStream) {
        self.stream = stream
        position = stream.offset
        stream.loader.retain()
    }

    deinit {
        finish()
        stream.release(loader)
    }

    func next() async throws -> Data? {
        guard !done else { return nil }
        do {
            if reader == nil {
                let info = try await loader.contentInfo()
                let offset = stream.offset
                guard offset >= 0, offset <= info.length, (stream.length ?? 0) >= 0 else {
                    throw SpoolError.rangeNotSatisfiable(requested: offset, length: info.length)
                }
                reader = loader.addReader(requestedEnd: stream.length.map { offset + min($0, Int64.max - offset) })
            }
            guard let chunk = try await loader.nextChunk(reader: reader!, position: position, priority: stream.priority, gate: stream.gate) else {
                finish()
                return nil
            }
            position += Int64(chunk.count)
            return chunk
        } catch {
            finish()
            throw error
        }
    }

    private func finish() {
        done = true
        if let reader {
            loader.removeReader(reader)
            self.reader = nil
        }
    }
}
