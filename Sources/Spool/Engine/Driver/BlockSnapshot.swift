import Foundation

/// The entry's bookkeeping of some blocks as it was when taken under the lock, for block work done off it (a
/// read, a write), and what says whether that work may still be taken in.
struct BlockSnapshot: Sendable {
    let file: BlockFile
    let blocks: Set<Int64>
    let present: ByteRangeSet
    let edges: EdgeSums
    let trusted: Set<Int64>
    let hashers: [Int64: BlockHasher]
    let length: Int64
    let salt: Data
    let revisions: UInt64
    let generation: Int

    /// A snapshot of the blocks `ranges` touch, with the entry's lock held; opens the data file if needed.
    init(of ranges: [Range<Int64>], in inner: inout EntryInner, core: EntryCore) throws {
        var blocks = Set<Int64>()
        for range in ranges where !range.isEmpty { blocks.formUnion(BlockLayout.blocks(in: range)) }
        file = try inner.openFile(core.environment, key: core.key)
        self.blocks = blocks
        present = inner.state.stored
        edges = inner.edgeSums.filter { blocks.contains($0.key) }
        trusted = inner.trusted.intersection(blocks)
        hashers = inner.hashers.filter { blocks.contains($0.key) }
        length = inner.state.info?.length ?? 0
        salt = inner.salt(key: core.key)
        revisions = inner.revisions
        generation = inner.state.generation
    }

    /// Whether work done with this snapshot may be taken in: no discard or adoption (`revisions`) and no new
    /// version happened since it was taken.
    func isCurrent(in inner: EntryInner) -> Bool {
        inner.revisions == revisions && inner.state.generation == generation
    }
}
