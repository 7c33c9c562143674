import Foundation

/// One read of one resource, opened once: one lookup of the entry (the engine, held until the session ends),
/// one answer for its content information and the bytes stored before the read asked the origin for
/// anything, one registration as a reader, then the parts in order. What a read is for is its `ReadPurpose`.
/// A player's loading request (`SpoolAsset`), a proxy response's range and a `ByteStream` are each one.
///
/// When the disk fails under it (full, a file size limit), the rest of the read comes straight from the
/// origin, uncached (`DirectRead`); the cache reported the failure once.
///
/// Used by one task at a time, one call at a time, as an `AsyncIteratorProtocol` is: `@unchecked Sendable`
/// so that the task may hand it on (the proxy reads a range's first part before it sends the head).
package final class ReadSession: @unchecked Sendable {
    /// The resource's content information, as the session found it when it opened.
    package let info: ContentInfo
    /// The bytes stored before the session asked the origin for anything (a server tells its client whether
    /// the answer came from the cache).
    package let storedBefore: ByteRangeSet
    private let engine: ResourceEngine
    private let purpose: ReadPurpose
    /// For a caller that passes the bytes on through buffers it cannot see into, such as a socket (see
    /// `SpoolCache.read`): awaited before the read's first origin request once it has delivered bytes from
    /// disk. Set before the first part.
    package var consumer: (@Sendable () async throws -> Void)?
    /// The player's request this read serves, told what it served and waited for (`PlaybackReport`).
    package var playback: PlaybackRequest?
    private let release: @Sendable (ResourceEngine) -> Void
    /// Where the read starts, the first byte not delivered yet, and where the read ends.
    private let start: Int64
    private var position: Int64
    private let end: Int64
    /// Where the caller asked the read to end (`nil`: to the end), which may lie past the resource's end.
    private let requestedEnd: Int64?
    private var reader: Int?
    private var done = false
    /// The rest of the read straight from the origin, once the disk failed.
    private var direct: DirectRead?
    /// Why the read cannot be served (a range past the end), thrown by the first `nextPart`.
    private var failure: SpoolError?
    /// How often the content information was asked for again (`rediscover`).
    private var rediscoveries = 0
    /// Parts read by `peek` and not delivered yet.
    private var peeked: [StreamPart] = []

    /// Opens a read of `length` bytes (`nil`: to the end) of the resource `engine` serves, from `offset`, for
    /// `purpose`; `release` gives the engine back when the session ends. The first origin request (when the
    /// content information is unknown) asks for what the read wants, or, with `sizedAsPlayback`, what a
    /// player's read to the end would (a player's question for the content information, which its reads
    /// follow). Throws when the origin cannot tell the content information; a range past the end is thrown
    /// by the first `nextPart`, so that a server still learns the content information (and answers `416`).
    /// `clientData` is the player's CMCD, `ahead` why a read ahead of playback runs (`ClientDataPolicy`).
    static func open(
        _ engine: ResourceEngine, from offset: Int64, length: Int64?, purpose: ReadPurpose,
        consumer: (@Sendable () async throws -> Void)? = nil, sizedAsPlayback: Bool = false,
        clientData: CommonMediaClientData? = nil, ahead: TransferPurpose? = nil,
        release: @escaping @Sendable (ResourceEngine) -> Void
    ) async throws -> ReadSession {
        // Whose read this is decides the CMCD of the origin requests it makes: a player's data, or a label.
        engine.context.clientDataSources.withLock {
            $0.note(player: purpose.priority == .playback, data: clientData, ahead: ahead)
        }
        // A negative offset or length makes a range the first `nextPart` refuses.
        let requestedEnd = length.map { length in offset < 0 ? offset : offset + min(length, Int64.max - offset) }
        let found: (info: ContentInfo, storedBefore: ByteRangeSet)
        do {
            // The cache's own looks (not counted as served) are not a player starting.
            found = try await engine.contentInfoAndStoredRanges(
                near: offset, until: sizedAsPlayback ? nil : requestedEnd, extent: purpose.extent,
                priority: purpose.countsServed ? purpose.priority : .prefetch)
        } catch {
            release(engine)
            throw error
        }
        return ReadSession(
            engine: engine, info: found.info, storedBefore: found.storedBefore, purpose: purpose, consumer: consumer,
            from: offset, to: requestedEnd, release: release)
    }

    private init(
        engine: ResourceEngine, info: ContentInfo, storedBefore: ByteRangeSet, purpose: ReadPurpose,
        consumer: (@Sendable () async throws -> Void)?, from offset: Int64, to requestedEnd: Int64?,
        release: @escaping @Sendable (ResourceEngine) -> Void
    ) {
        self.engine = engine
        self.info = info
        self.storedBefore = storedBefore
        self.purpose = purpose
        self.consumer = consumer
        self.release = release
        start = offset
        position = offset
        self.requestedEnd = requestedEnd
        end = max(offset, min(requestedEnd ?? info.length, info.length))
        if offset < 0 || offset > info.length || (requestedEnd ?? offset) < offset {
            failure = SpoolError.rangeNotSatisfiable(requested: offset, length: info.length)
        }
    }

    deinit {
        finish()
        release(engine)
    }

    /// The bytes the session reads: from where it started to its end, clipped to the resource's.
    package var range: Range<Int64> { start..<end }

    /// Up to `count` of the session's next bytes, without taking them: the parts they came in are delivered
    /// by `nextPart` as if never looked at. For a server that tells a playlist by its first bytes on the way
    /// to serving the resource, with no read of its own.
    package func peek(_ count: Int) async throws -> Data {
        var data = Data()
        // Parts read without a `revoke` come in memory; read with a limit, a stored resource's first bytes
        // cost a read of their own size, and the parts after them still come as slices.
        for case .bytes(let bytes) in peeked { data.append(bytes) }
        while data.count < count, let part = try await readPart(revoke: nil, limit: count - data.count) {
            peeked.append(part)
            if case .bytes(let bytes) = part { data.append(bytes) }
        }
        return data.prefix(count)
    }

    /// The next part: stored bytes the cache has checked come as a `FileSlice` when `revoke` is given and the
    /// cache is not encrypted, the rest in memory; `nil` after the last byte. `revoke` is called (at most
    /// once per slice, on any thread) when a slice's bytes must go before it is released; its holder then
    /// stops sending it and releases it.
    package func nextPart(revoke: (@Sendable () -> Void)? = nil) async throws -> StreamPart? {
        if !peeked.isEmpty { return peeked.removeFirst() }
        return try await readPart(revoke: revoke)
    }

    /// Takes the stored bytes of `range` as received by this session without reading them: bytes its first
    /// request stored that a transfer does not read again. A player's later read of them is then a hit, as
    /// after any read of the cache's own (`FreshBytes`).
    package func takeUnread(_ range: Range<Int64>) {
        engine.takeFresh(range)
    }

    /// The next bytes in memory, or `nil` after the last.
    package func next() async throws -> Data? {
        switch try await nextPart() {
        case .bytes(let data): return data
        case .file, nil: return nil
        }
    }

    /// The rest of the read, in memory: for the small resources a caller parses.
    package func readAll() async throws -> Data {
        var data = Data()
        data.reserveCapacity(Int(clamping: max(0, end - position)))
        while let chunk = try await next() { data.append(chunk) }
        return data
    }

    private func readPart(revoke: (@Sendable () -> Void)?, limit: Int? = nil) async throws -> StreamPart? {
        if let direct { return try await next(from: direct) }
        guard !done else { return nil }
        if let failure {
            done = true
            throw failure
        }
        do {
            let reader =
                reader ?? engine.addReader(requestedEnd: requestedEnd, purpose: purpose)
            self.reader = reader
            guard
                let part = try await engine.nextPart(
                    reader: reader, position: position, purpose: purpose, consumer: consumer, playback: playback,
                    revoke: revoke, limit: limit)
            else {
                finish()
                return nil
            }
            position += Int64(part.count)
            return part
        } catch is EngineState.ContentInfoDropped {
            return try await rediscover(revoke: revoke, limit: limit)
        } catch SpoolError.storage {
            // The disk fails (full, a file size limit): the rest of the read comes straight from the origin,
            // uncached. The cache reported the failure once.
            finish()
            let read = DirectRead(fetcher: engine.fetcher, info: info, from: position, to: end)
            direct = read
            return try await next(from: read)
        } catch {
            finish()
            throw error
        }
    }

    /// The content information was dropped before the read delivered a byte (the app removed the resource
    /// meanwhile): it is asked for again, and the read goes on only if it describes the version the session
    /// opened with, whose length and validators its caller may have announced already.
    private func rediscover(revoke: (@Sendable () -> Void)?, limit: Int?) async throws -> StreamPart? {
        rediscoveries += 1
        do {
            guard rediscoveries <= 3 else { throw SpoolError.resourceChanged }
            let found = try await engine.contentInfoAndStoredRanges(
                near: position, until: requestedEnd, extent: purpose.extent,
                priority: purpose.countsServed ? purpose.priority : .prefetch)
            // The version as the engine judges it everywhere, and the same range support.
            guard !found.info.isDifferentVersion(from: info), found.info.acceptsRanges == info.acceptsRanges else {
                throw SpoolError.resourceChanged
            }
        } catch {
            finish()
            throw error
        }
        return try await readPart(revoke: revoke, limit: limit)
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
