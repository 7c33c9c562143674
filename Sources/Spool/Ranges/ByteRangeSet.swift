/// A set of byte offsets stored as sorted, disjoint, non-adjacent half-open ranges.
///
/// Adjacent and overlapping insertions coalesce, so the number of stored ranges is the number of separate
/// pieces, whatever the number of writes that produced them. Lookups are binary searches.
public struct ByteRangeSet: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ranges, sorted by lower bound, disjoint and never adjacent, none empty.
    public private(set) var ranges: [Range<Int64>]

    /// An empty set.
    package init() {
        ranges = []
    }

    /// The union of `ranges`, which may be in any order and may overlap.
    package init<S: Sequence>(_ ranges: S) where S.Element == Range<Int64> {
        self.ranges = []
        for range in ranges { insert(range) }
    }

    /// Whether the set holds no byte.
    public var isEmpty: Bool { ranges.isEmpty }

    /// The number of bytes in the set.
    public var byteCount: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    /// `[a-b) [c-d)`, for logs and the command line.
    public var description: String {
        ranges.map { "[\($0.lowerBound)-\($0.upperBound))" }.joined(separator: " ")
    }

    /// Adds every byte of `range`.
    package mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        // Everything from the first range that touches `range` to the last one merges into one.
        let first = firstIndex(withUpperBoundAtLeast: range.lowerBound)
        var last = first
        var merged = range
        while last < ranges.count, ranges[last].lowerBound <= range.upperBound {
            merged = min(merged.lowerBound, ranges[last].lowerBound)..<max(merged.upperBound, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [merged])
    }

    /// Adds every byte of `other`.
    package mutating func formUnion(_ other: ByteRangeSet) {
        for range in other.ranges { insert(range) }
    }

    /// Removes every byte of `range`.
    package mutating func remove(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        let first = firstIndex(withUpperBoundAtLeast: range.lowerBound + 1)
        var last = first
        var remainder: [Range<Int64>] = []
        while last < ranges.count, ranges[last].lowerBound < range.upperBound {
            let existing = ranges[last]
            if existing.lowerBound < range.lowerBound { remainder.append(existing.lowerBound..<range.lowerBound) }
            if existing.upperBound > range.upperBound { remainder.append(range.upperBound..<existing.upperBound) }
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: remainder)
    }

    /// Removes everything.
    package mutating func removeAll() {
        ranges.removeAll()
    }

    /// Whether `offset` is in the set.
    public func contains(_ offset: Int64) -> Bool {
        range(containing: offset) != nil
    }

    /// Whether every byte of `range` is in the set (an empty range always is).
    public func contains(_ range: Range<Int64>) -> Bool {
        guard !range.isEmpty else { return true }
        guard let holder = self.range(containing: range.lowerBound) else { return false }
        return holder.upperBound >= range.upperBound
    }

    /// The stored range that holds `offset`, if any.
    public func range(containing offset: Int64) -> Range<Int64>? {
        let index = firstIndex(withUpperBoundAtLeast: offset + 1)
        guard index < ranges.count, ranges[index].lowerBound <= offset else { return nil }
        return ranges[index]
    }

    /// The lowest offset in the set that is at or after `offset`.
    package func firstOffset(atOrAfter offset: Int64) -> Int64? {
        let index = firstIndex(withUpperBoundAtLeast: offset + 1)
        guard index < ranges.count else { return nil }
        return max(ranges[index].lowerBound, offset)
    }

    /// The parts of `range` that are in the set, in order.
    package func intersection(_ range: Range<Int64>) -> [Range<Int64>] {
        guard !range.isEmpty else { return [] }
        var result: [Range<Int64>] = []
        var index = firstIndex(withUpperBoundAtLeast: range.lowerBound + 1)
        while index < ranges.count, ranges[index].lowerBound < range.upperBound {
            result.append(ranges[index].clamped(to: range))
            index += 1
        }
        return result
    }

    /// The parts of `range` that are not in the set, in order.
    package func gaps(in range: Range<Int64>) -> [Range<Int64>] {
        guard !range.isEmpty else { return [] }
        var result: [Range<Int64>] = []
        var cursor = range.lowerBound
        for present in intersection(range) {
            if present.lowerBound > cursor { result.append(cursor..<present.lowerBound) }
            cursor = present.upperBound
        }
        if cursor < range.upperBound { result.append(cursor..<range.upperBound) }
        return result
    }

    /// The index of the first range whose upper bound is at least `bound`; `ranges.count` if none.
    private func firstIndex(withUpperBoundAtLeast bound: Int64) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < bound { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
