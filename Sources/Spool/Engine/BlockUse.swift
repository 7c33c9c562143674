import Foundation

/// When each stored block was last written or read in this process, as part of an engine's state
/// (`EngineState.blockUse`): eviction gives up the least recently used blocks first (`EngineState.shed`).
/// Blocks not in it are older than any in it.
struct BlockUse {
    private(set) var lastUse: [Int64: Date] = [:]

    /// The blocks `range` touches were written or read at `now`.
    mutating func used(_ range: Range<Int64>, at now: Date) {
        for block in BlockLayout.blocks(in: range) { lastUse[block] = now }
    }

    /// `blocks` were written at `now`.
    mutating func used(blocks: Set<Int64>, at now: Date) {
        for block in blocks { lastUse[block] = now }
    }

    /// The blocks `ranges` touch are no longer stored.
    mutating func forget(_ ranges: [Range<Int64>]) {
        for range in ranges {
            for block in BlockLayout.blocks(in: range) { lastUse[block] = nil }
        }
    }
}
