import Foundation

/// Which stored blocks eviction gives up first.
extension EngineState {
    /// The stored bytes to give up, block by block, to free at least `bytes` if the entry can: least recently
    /// used blocks first (`lastUse`; a block not in it is older than any in it), sparing what readers are about
    /// to read (a largest piece ahead of each position in `readers`), what requests are filling, and `held`
    /// (file slices being sent). Each element is one block's stored ranges.
    func blocksToShed(bytes: Int64, readers: [Int64], lastUse: [Int64: Date], held: [Range<Int64>])
        -> [[Range<Int64>]]
    {
        guard let info, bytes > 0 else { return [] }
        var spared = ByteRangeSet()
        for position in readers { spared.insert(position..<min(info.length, position + policy.maximumPieceSize)) }
        for fetch in fetches.values where fetch.position < fetch.end { spared.insert(fetch.position..<fetch.end) }
        for range in held { spared.insert(range) }
        var candidates = Set<Int64>()
        for range in stored.ranges where !range.isEmpty {
            for block in BlockLayout.blocks(in: range) { candidates.insert(block) }
        }
        let order =
            candidates
            .filter { spared.intersection(BlockLayout.range(of: $0)).isEmpty }
            .sorted { (lastUse[$0] ?? .distantPast, $0) < (lastUse[$1] ?? .distantPast, $1) }
        var chosen: [[Range<Int64>]] = []
        var freed: Int64 = 0
        for block in order where freed < bytes {
            let present = stored.intersection(BlockLayout.range(of: block))
            freed += present.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
            chosen.append(present)
        }
        return chosen
    }

    /// Eviction wants `bytes` back: gives up the blocks `blocksToShed` chooses, sparing where the readers are,
    /// what requests fill, and `held` (file slices being sent). Returns the bytes given up; the record is then
    /// the caller's to write.
    mutating func shed(_ bytes: Int64, held: [Range<Int64>]) -> Int64 {
        let chosen = blocksToShed(
            bytes: bytes, readers: readers.values.compactMap(\.position), lastUse: blockUse.lastUse, held: held)
        var freed: Int64 = 0
        for present in chosen {
            freed += present.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
            forget(present)
            blockUse.forget(present)
        }
        if freed > 0 {
            // Their slots are cleared; readers that need them fetch them again.
            emit(.clearDiscarded)
            emit(.wakeReaders)
        }
        return freed
    }
}
