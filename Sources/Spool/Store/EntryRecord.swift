import Foundation

/// What the index keeps about one cache entry. Written atomically, after the bytes it describes are on disk.
struct EntryRecord: Codable, Sendable, Equatable {
    /// The format of this record; a record of another format is ignored (its entry is dropped). Format 4:
    /// block checksums end with the length, so a growing block is hashed incrementally. Format 5: plain
    /// blocks are checked with XXH64 instead of SHA-256.
    static let currentFormat = 5

    var format: Int = EntryRecord.currentFormat
    /// The URL without credentials, for listings.
    var url: String
    /// The version the stored bytes belong to.
    var info: ContentInfo
    /// The bytes present in the data file.
    var ranges: ByteRangeSet
    var created: Date
    var lastAccess: Date
    /// Pinned for offline use: never evicted.
    var pinned: Bool = false
    /// Identifies the encryption key the bytes are sealed with (a keyed hash, not the key); `nil` when
    /// stored unencrypted.
    var keyCheck: String?
    /// The checksums of partial blocks (the edges of `ranges`), which change as bytes arrive and so are
    /// kept with the claims they vouch for. Complete blocks have theirs in the data file's `.sums`.
    var edgeSums: EdgeSums = [:]
}
