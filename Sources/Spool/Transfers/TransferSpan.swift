/// The bytes a transfer job stores: from `start` to `end`, or (`end` `nil`) to the resource's end, which the
/// job learns when it asks for the content information.
package struct TransferSpan: Sendable, Hashable, CustomStringConvertible {
    /// The first byte.
    package var start: Int64
    /// The byte after the last; `nil`: the resource's end.
    package var end: Int64?

    package init(start: Int64 = 0, end: Int64? = nil) {
        self.start = max(0, start)
        self.end = end.map { Swift.max(self.start, $0) }
    }

    /// The span of `range`.
    package init(_ range: Range<Int64>) {
        self.init(start: range.lowerBound, end: range.upperBound)
    }

    /// Whether every byte of `other` is a byte of this span (for a span to the end, whatever the end is).
    package func contains(_ other: TransferSpan) -> Bool {
        guard other.start >= start else { return false }
        guard let end else { return true }
        guard let otherEnd = other.end else { return false }
        return otherEnd <= end
    }

    /// "0-1000", "5000-end".
    package var description: String { "\(start)-\(end.map(String.init) ?? "end")" }
}
