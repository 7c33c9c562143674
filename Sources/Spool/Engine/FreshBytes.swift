/// Bytes fetched that no reader has received yet, as part of an engine's state (`EngineState.fresh`): the first
/// playback read to receive them got them from the origin (`CacheStatistics`); any later one, or one after a
/// prefetch took them, from the cache.
struct FreshBytes {
    private(set) var ranges = ByteRangeSet()

    /// Bytes a response delivered are stored, and no reader has received them yet.
    mutating func stored(_ received: ByteRangeSet) {
        ranges.formUnion(received)
    }

    /// The fresh bytes of `range`, which a read receives: they are not fresh any more.
    mutating func take(_ range: Range<Int64>) -> ByteRangeSet {
        guard !ranges.isEmpty else { return ByteRangeSet() }
        let taken = ByteRangeSet(ranges.intersection(range))
        if !taken.isEmpty { ranges.remove(range) }
        return taken
    }

    /// Marks `taken` fresh again: the read that took them delivered nothing (a discard overlapped it, or no
    /// slice could be made), so the next read to receive them is still the first.
    mutating func giveBack(_ taken: ByteRangeSet) {
        ranges.formUnion(taken)
    }
}
