import Foundation

/// A client that reads a range the way a player does: it asks for `range` (usually `bytes=N-`, to the end),
/// takes the first `limit` bytes of the body and hangs up.
protocol RangeReading {
    /// GETs `url` with `Range: range` when given, reading at most `limit` body bytes (the whole body without
    /// one); `marks` are body sizes whose arrival times the transfer reports.
    func get(_ url: URL, range: String?, limit: Int64?, marks: [Int64]) throws -> RangeReader.Transfer
}

extension RangeReading {
    /// `get` without marks.
    func get(_ url: URL, range: String?, limit: Int64?) throws -> RangeReader.Transfer {
        try get(url, range: range, limit: limit, marks: [])
    }
}

extension RangeReader: RangeReading {
    /// Reads `url`'s path and query from this reader's loopback port.
    func get(_ url: URL, range: String?, limit: Int64?, marks: [Int64]) throws -> Transfer {
        try get(Self.target(of: url), range: range, limit: limit, marks: marks)
    }
}
