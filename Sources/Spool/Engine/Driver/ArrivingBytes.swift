import Foundation

/// The bytes origin responses have delivered and the entry's writes have not stored yet, for readers waiting
/// at their offsets: a reader gets them from memory as they arrive instead of after the write, the file's
/// bookkeeping and a wake-up.
///
/// Only responses whose version was checked (`EngineState.absorb`, `openDiscovered`) add bytes, each tagged
/// with the number of the version it belongs to, and a reader takes only its own version's: the bytes are the
/// ones the write stores, so a reader never receives a byte the cache would not serve from disk. They are
/// dropped once stored, when their request ends, and all at once when a new version resets the entry, so memory stays
/// within what the requests' `ChunkPipe`s hold anyway (the chunks are shared, not copied).
struct ArrivingBytes {
    private struct Chunk {
        let offset: Int64
        let data: Data
        let fetch: Int
        let versionNumber: Int
        var end: Int64 { offset + Int64(data.count) }
    }

    private var chunks: [Chunk] = []
    /// Bytes a player received from here: when their write lands they are not fresh (`EngineState.fresh`), as
    /// the player already counted them as the origin's.
    private(set) var handedOut = ByteRangeSet()

    /// Whether nothing waits.
    var isEmpty: Bool { chunks.isEmpty }

    /// Adds `data`, which request `fetch` received for resource offset `offset`, of `versionNumber`.
    mutating func add(_ data: Data, at offset: Int64, fetch: Int, versionNumber: Int) {
        guard !data.isEmpty else { return }
        chunks.append(Chunk(offset: offset, data: data, fetch: fetch, versionNumber: versionNumber))
    }

    /// The bytes from `position` of `versionNumber` that have arrived, up to `limit` bytes and to where their
    /// request will store them (`storedUpTo`, by request: its end, `nil` for none); `nil` when the byte at
    /// `position` has not arrived or will not be stored. A reader takes no byte its request will not store,
    /// or its read could end with the byte neither stored nor coming (a request cut short drops the rest of
    /// its response).
    func bytes(at position: Int64, versionNumber: Int, limit: Int64, storedUpTo: (Int) -> Int64?) -> Data? {
        guard limit > 0,
            let chunk = chunks.first(where: {
                $0.versionNumber == versionNumber && $0.offset <= position && position < $0.end
            }),
            let storedEnd = storedUpTo(chunk.fetch), position < storedEnd
        else { return nil }
        let start = Int(position - chunk.offset)
        let count = Int(min(Int64(chunk.data.count - start), limit, storedEnd - position))
        let base = chunk.data.startIndex + start
        return chunk.data[base..<base + count]
    }

    /// Whether bytes of `range` wait here to be stored.
    func holds(_ range: Range<Int64>) -> Bool {
        chunks.contains { $0.offset < range.upperBound && range.lowerBound < $0.end }
    }

    /// Records that a player received `range` from here; returns how many of its bytes no player received
    /// from here before (the origin's, for the statistics).
    mutating func handOut(_ range: Range<Int64>) -> Int64 {
        let before = handedOut.intersection(range).reduce(Int64(0)) { $0 + $1.upperBound - $1.lowerBound }
        handedOut.insert(range)
        return Int64(range.count) - before
    }

    /// The parts of `stored` that no player received from here, which are fresh; forgets those it did.
    mutating func takeFresh(_ stored: Range<Int64>) -> ByteRangeSet {
        var fresh = ByteRangeSet()
        fresh.insert(stored)
        guard !handedOut.ranges.isEmpty else { return fresh }
        for range in handedOut.intersection(stored) { fresh.remove(range) }
        handedOut.remove(stored)
        return fresh
    }

    /// Drops what request `fetch` received before `offset`: it is stored, or will never be.
    mutating func drop(fetch: Int, before offset: Int64) {
        chunks.removeAll { $0.fetch == fetch && $0.end <= offset }
    }

    /// Drops everything request `fetch` received: it ended.
    mutating func drop(fetch: Int) {
        chunks.removeAll { $0.fetch == fetch }
    }

    /// Drops everything: a new version, or the entry closing.
    mutating func removeAll() {
        chunks.removeAll()
        handedOut = ByteRangeSet()
    }
}
