import Foundation

/// How large and how old a cache may grow. Enforced as data is written: least recently used entries go
/// first, entries pinned for offline use never, and a resource being read never loses the bytes its readers
/// are about to read. A single resource larger than the limit still plays: its least recently used pieces
/// go first.
public struct CacheLimits: Sendable, Hashable {
    /// The most bytes the cache may hold on disk (cached media bytes); `nil` for no limit.
    public var maxBytes: Int64?
    /// Entries not read or written for longer than this many seconds are removed; `nil` for no limit.
    public var maxAge: TimeInterval?

    /// Limits; none by default.
    public init(maxBytes: Int64? = nil, maxAge: TimeInterval? = nil) {
        self.maxBytes = maxBytes
        self.maxAge = maxAge
    }

    /// No limit at all.
    public static let unlimited = CacheLimits()
}
