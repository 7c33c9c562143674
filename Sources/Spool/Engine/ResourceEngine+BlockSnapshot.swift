import Foundation

/// What block work done off the entry's lock (a read, a write) needs of the entry, taken under the lock.
extension ResourceEngine {
    /// The entry's bookkeeping of some blocks as it was when taken, and what says whether it still holds.
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

        /// Whether work done with this snapshot may be taken in: no discard or adoption (`revisions`) and no new
        /// version happened since it was taken.
        func isCurrent(in inner: Inner) -> Bool {
            inner.revisions == revisions && inner.state.generation == generation
        }
    }

    /// A snapshot of the blocks `ranges` touch, with the entry's lock held.
    func snapshot(of ranges: [Range<Int64>], in inner: inout Inner) throws -> BlockSnapshot {
        var blocks = Set<Int64>()
        for range in ranges where !range.isEmpty { blocks.formUnion(BlockLayout.blocks(in: range)) }
        return BlockSnapshot(
            file: try inner.openFile(environment, key: key), blocks: blocks, present: inner.state.stored,
            edges: inner.edgeSums.filter { blocks.contains($0.key) }, trusted: inner.trusted.intersection(blocks),
            hashers: inner.hashers.filter { blocks.contains($0.key) }, length: inner.state.info?.length ?? 0,
            salt: inner.salt(key: key), revisions: inner.revisions, generation: inner.state.generation)
    }
}
