import Foundation

/// What an engine knows of its stored blocks' checks, as part of its state (`EngineState.checks`): the partial
/// blocks' checksums, the blocks read or written here (read again without checking), the running checksums of
/// the partial blocks being filled, the bytes found damaged, the discarded ranges whose checksum slots are still
/// to be cleared, and a count of the changes that make a plan made under the lock stale.
///
/// It changes only through the events below; the driver reads it to plan block work (`BlockSnapshot`) and
/// takes the result in through them. A new version starts it afresh (`EngineState`'s version change).
struct BlockChecks {
    /// The checksums of partial blocks, as the stored ranges are now.
    private(set) var edgeSums: EdgeSums = [:]
    /// Blocks whose stored bytes this engine has checked or written itself: read without checking again.
    private(set) var trusted = Set<Int64>()
    /// The running checksums of the partial blocks this engine is filling; any other change to a block's
    /// stored bytes drops its entry.
    private(set) var hashers: [Int64: BlockHasher] = [:]
    /// Bytes found damaged here, or claimed by the record beyond its data file's end when the entry opened
    /// (the file was cut short or emptied): never taken back from a record on disk, or a reader could go round
    /// between adopting and rejecting them, and a file grown again past them would have them claimed as holes.
    private(set) var distrusted = ByteRangeSet()
    /// Ranges let go whose checksum slots are still to be cleared, by the entry's write queue before its next
    /// write (`ChunkWriter`): nothing claims them meanwhile, so no read plans on them.
    private(set) var discards: [Range<Int64>] = []
    /// Counts the changes that invalidate a read or write planned under the lock and done off it
    /// (`BlockSnapshot`): stored bytes discarded (damage, eviction, a new version) and another process's bytes
    /// adopted into blocks checked here. A plan made before one is made again.
    private(set) var planInvalidations: UInt64 = 0

    /// The entry opened with a record whose partial blocks' checksums are `edges`, `trusted` blocks checked in
    /// this process before it last closed, and `distrusted` bytes the record claims beyond the data file.
    mutating func opened(edges: EdgeSums, trusted: Set<Int64>, distrusted: ByteRangeSet) {
        edgeSums = edges
        self.trusted = trusted
        self.distrusted = distrusted
    }

    /// A read checked `blocks` (with those it found checked already).
    mutating func read(checked blocks: Set<Int64>) {
        trusted.formUnion(blocks)
    }

    /// A write to `blocks` left them with these checksums, running checksums and checks; `foundDamage` when
    /// it found stored bytes damaged and discarded them, so that a read planned before must not take their
    /// blocks for checked.
    mutating func wrote(
        _ blocks: Set<Int64>, edges: EdgeSums, hashers written: [Int64: BlockHasher], trusted checked: Set<Int64>,
        foundDamage: Bool
    ) {
        for block in blocks {
            edgeSums[block] = edges[block]
            hashers[block] = written[block]
            if checked.contains(block) { trusted.insert(block) } else { trusted.remove(block) }
        }
        if foundDamage { planInvalidations &+= 1 }
    }

    /// `ranges` are let go (damaged or evicted): their blocks are unchecked and their slots are to be cleared.
    mutating func forget(_ ranges: [Range<Int64>]) {
        planInvalidations &+= 1
        for range in ranges where !range.isEmpty {
            for block in BlockLayout.blocks(in: range) {
                edgeSums[block] = nil
                trusted.remove(block)
                hashers[block] = nil
            }
            distrusted.insert(range)
            discards.append(range)
        }
    }

    /// Another process's bytes `added` were taken in, and the partial blocks' checksums are `edges` now: the
    /// blocks they touch are unchecked here, and the running checksums no longer match the blocks.
    mutating func adopted(_ added: ByteRangeSet, edges: EdgeSums) {
        for range in added.ranges {
            for block in BlockLayout.blocks(in: range) { trusted.remove(block) }
        }
        planInvalidations &+= 1
        edgeSums = edges
        hashers.removeAll()
    }

    /// The discarded ranges, for the write queue to clear their slots; they are no longer owed.
    mutating func takeDiscards() -> [Range<Int64>] {
        defer { discards.removeAll() }
        return discards
    }

    /// A new version: nothing stored is checked, damaged or owed any more.
    mutating func newVersion() {
        self = BlockChecks(planInvalidations: planInvalidations &+ 1)
    }

    private init(planInvalidations: UInt64) {
        self.planInvalidations = planInvalidations
    }

    init() {}
}
