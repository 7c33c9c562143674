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
    let planInvalidations: UInt64
    let versionNumber: Int

    /// A snapshot of the blocks `ranges` touch, with the entry's lock held; throws `LockedEntry.FileNotOpen`
    /// while the data file is not open.
    init(of ranges: [Range<Int64>], in entry: inout LockedEntry, context: EntryContext) throws {
        var blocks = Set<Int64>()
        for range in ranges where !range.isEmpty { blocks.formUnion(BlockLayout.blocks(in: range)) }
        file = try entry.openedFile()
        self.blocks = blocks
        present = entry.state.stored
        let checks = entry.state.checks
        edges = checks.edgeSums.filter { blocks.contains($0.key) }
        trusted = checks.trusted.intersection(blocks)
        hashers = checks.hashers.filter { blocks.contains($0.key) }
        length = entry.state.info?.length ?? 0
        salt = entry.salt(key: context.key)
        planInvalidations = checks.planInvalidations
        versionNumber = entry.state.versionNumber
    }

    /// Whether work done with this snapshot may be taken in: no discard or adoption (`planInvalidations`) and no new
    /// version happened since it was taken.
    func isCurrent(in entry: LockedEntry) -> Bool {
        entry.state.checks.planInvalidations == planInvalidations && entry.state.versionNumber == versionNumber
    }
}
