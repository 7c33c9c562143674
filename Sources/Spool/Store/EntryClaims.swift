import Foundation

/// What an entry's index says is stored: the ranges and the checksums of their partial blocks. Two
/// processes filling one entry each keep their own claims; `merged(with:)` joins them block by block
/// without ever vouching for bytes no checksum covers.
struct EntryClaims: Equatable, Sendable {
    var ranges: ByteRangeSet
    var edges: EdgeSums

    /// These claims joined with `other` (of the same version) for a resource of `length` bytes. Per block:
    /// the side that has it alone, the side that has it complete (its checksum is in the shared `.sums`
    /// file), or the side whose bytes include the other's; when both hold different parts of a partial
    /// block, these claims win, since no checksum covers the union.
    func merged(with other: EntryClaims, length: Int64) -> EntryClaims {
        var result = self
        // Only blocks where the other side has bytes this one lacks can change: where both hold the same
        // bytes, or these claims hold more, they stay as they are. A process filling an entry alone finds
        // no such block, and merging with its own last record costs nothing per block (it walked all 16,384
        // blocks of a 1 GiB entry on every index write).
        var extra = other.ranges
        for range in ranges.ranges { extra.remove(range) }
        var blocks = Set<Int64>()
        for range in extra.ranges where !range.isEmpty {
            for block in BlockLayout.blocks(in: range) { blocks.insert(block) }
        }
        for block in blocks {
            let area = BlockLayout.range(of: block, length: length)
            let mine = ByteRangeSet(ranges.intersection(area))
            let theirs = ByteRangeSet(other.ranges.intersection(area))
            let theirsComplete = theirs.ranges == [area]
            let theirsCovers = theirs.ranges.isEmpty ? false : mine.ranges.allSatisfy { theirs.contains($0) }
            guard mine.isEmpty || theirsComplete || (theirsCovers && theirs != mine && mine.ranges != [area]) else {
                continue
            }
            for part in mine.ranges { result.ranges.remove(part) }
            for part in theirs.ranges { result.ranges.insert(part) }
            result.edges[block] = theirsComplete ? nil : other.edges[block]
        }
        return result
    }

    /// These claims merged with `other`'s, less `distrusted`: bytes found damaged (or evicted) here stay
    /// dropped even when the other side still names them.
    func merged(with other: EntryClaims, excluding distrusted: ByteRangeSet, length: Int64) -> EntryClaims {
        var offered = other.ranges
        for range in distrusted.ranges { offered.remove(range) }
        return merged(with: EntryClaims(ranges: offered, edges: other.edges), length: length)
    }
}
