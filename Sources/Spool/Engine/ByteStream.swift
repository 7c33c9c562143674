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

    fileprivate let acquire: @Sendable () -> ResourceEngine
    fileprivate let offset: Int64
    fileprivate let length: Int64?
    fileprivate let priority: ReadPriority
    fileprivate let extent: ReadExtent
    fileprivate let gate: PlaybackGate
    fileprivate let consumer: (@Sendable () async throws -> Void)?
    /// Whether a playback read's bytes count as served (`CacheStatistics`); not for the cache's own reads of
    /// what it parses.
    fileprivate let countsServed: Bool
    /// Whether the read's end waits until the bytes it took from memory, as they arrived, are stored, so
    /// that whoever sees it end finds them cached (a player's reads); not for a look at a resource's first
    /// bytes on the way to serving it.
    fileprivate let awaitsStoring: Bool
    fileprivate let release: @Sendable (ResourceEngine) -> Void

    /// A stream that takes its engine with `acquire` when iteration starts and gives it back with `release`
    /// when the iteration ends, so a stream that is never iterated holds nothing.
    init(
        acquire: @escaping @Sendable () -> ResourceEngine, offset: Int64, length: Int64?, priority: ReadPriority,
        extent: ReadExtent = .mayStopEarly, gate: PlaybackGate, consumer: (@Sendable () async throws -> Void)? = nil,
        countsServed: Bool = true, awaitsStoring: Bool = true, release: @escaping @Sendable (ResourceEngine) -> Void
    ) {
        self.countsServed = countsServed
        self.awaitsStoring = awaitsStoring
        self.acquire = acquire
        self.offset = offset
        self.length = length
        self.priority = priority
        self.extent = extent
        self.gate = gate
        self.consumer = consumer
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
            switch try await session.next(revoke: nil) {
            case .bytes(let data): return data
            case .file, nil: return nil
            }
        }

        /// The next part, for a server that sends bytes from files: stored bytes the cache has checked come as
        /// a `FileSlice` where the cache is not encrypted, the rest in memory. `revoke` is called (at most once
        /// per slice, on any thread) when a slice's bytes must go before it is released; its holder then stops
        /// sending it and releases it.
        package mutating func nextPart(revoke: @escaping @Sendable () -> Void) async throws -> StreamPart? {
            try await session.next(revoke: revoke)
        }
    }
}

/// One iteration of a `ByteStream`: registers as a reader on first use, unregisters when done or dropped.
private final class ReadSession: @unchecked Sendable {
    private let stream: ByteStream
    private let engine: ResourceEngine
    // Only touched by the task iterating, one `next()` at a time, as AsyncIteratorProtocol requires.
    private var reader: Int?
    private var position: Int64
    /// Where the read ends, once the resource's length is known.
    private var end: Int64?
    private var done = false
    /// The rest of the read straight from the origin, once the disk failed.
    private var direct: DirectRead?

    init(_ stream: ByteStream) {
        self.stream = stream
        position = stream.offset
        engine = stream.acquire()
    }

    deinit {
        finish()
        stream.release(engine)
    }

    func next(revoke: (@Sendable () -> Void)?) async throws -> StreamPart? {
        if let direct { return try await next(from: direct) }
        guard !done else { return nil }
        do {
            if reader == nil {
                // The cache's own looks (`countsServed` false) are not a player starting.
                let info = try await engine.contentInfo(
                    near: stream.offset,
                    until: stream.length.map { stream.offset + min($0, Int64.max - stream.offset) },
                    priority: stream.countsServed ? stream.priority : .prefetch)
                let offset = stream.offset
                guard offset >= 0, offset <= info.length, (stream.length ?? 0) >= 0 else {
                    throw SpoolError.rangeNotSatisfiable(requested: offset, length: info.length)
                }
                end =
                    stream.length.map { offset + min($0, Int64.max - offset) }.map { min($0, info.length) }
                    ?? info.length
                reader = engine.addReader(
                    requestedEnd: stream.length.map { offset + min($0, Int64.max - offset) }, extent: stream.extent,
                    priority: stream.priority)
            }
            guard
                let part = try await engine.nextPart(
                    reader: reader!, position: position, priority: stream.priority, gate: stream.gate,
                    consumer: stream.consumer, revoke: revoke, countsServed: stream.countsServed,
                    awaitsStoring: stream.awaitsStoring)
            else {
                finish()
                return nil
            }
            position += Int64(part.count)
            return part
        } catch SpoolError.storage {
            // The disk fails (full, a file size limit): the rest of the read comes straight from the origin,
            // uncached. The cache reported the failure once.
            finish()
            let info = try await engine.contentInfo()
            let read = DirectRead(fetcher: engine.fetcher, info: info, from: position, to: end ?? info.length)
            direct = read
            return try await next(from: read)
        } catch {
            finish()
            throw error
        }
    }

    /// The next chunk of the read straight from the origin, for when the disk cannot take it.
    private func next(from direct: DirectRead) async throws -> StreamPart? {
        do {
            guard let chunk = try await direct.next() else { return nil }
            position += Int64(chunk.count)
            return .bytes(chunk)
        } catch {
            direct.cancel()
            self.direct = nil
            throw error
        }
    }

    private func finish() {
        done = true
        if let reader {
            engine.removeReader(reader)
            self.reader = nil
        }
    }
}
