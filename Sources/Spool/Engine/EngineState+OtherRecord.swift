/// Another process's index record was read (`IndexWriter.adoptStoredElsewhere`): which of the bytes it claims
/// this engine takes in, with what that does to the blocks' checks. The driver reads the record off the lock
/// and does what the verdict says to what it owns (the record's stamp, waiting readers).
extension EngineState {
    /// What to do with another process's record.
    enum OtherRecordVerdict: Equatable {
        /// Nothing now, and look again later: a version change is under way (the data file's bytes are the
        /// old version's whatever a record says) or the content information is unknown.
        case later
        /// Nothing to take in: another version, or no bytes this engine lacks. The record has been seen.
        case nothingNew
        /// Bytes were taken in: `stored` has them, their blocks are unchecked here, and the partial blocks'
        /// checksums are the merged ones.
        case adopted
    }

    /// Another process's record claims `theirs` of the version `theirInfo`. Bytes found damaged here
    /// (`BlockChecks.distrusted`) are never taken back from a record, or a reader could go round between
    /// adopting and rejecting them. Merging only adds (a side's bytes are replaced only by a side that holds
    /// them all; see `EntryClaims.merged`).
    mutating func otherRecordRead(_ theirs: EntryClaims, of theirInfo: ContentInfo) -> OtherRecordVerdict {
        guard !isResetting, let info else { return .later }
        guard !theirInfo.isDifferentVersion(from: info) else { return .nothingNew }
        let merged = EntryClaims(ranges: stored, edges: checks.edgeSums)
            .merged(with: theirs, excluding: checks.distrusted, length: info.length)
        guard merged.ranges != stored else { return .nothingNew }
        var added = merged.ranges
        for range in stored.ranges { added.remove(range) }
        gained(added)
        checks.adopted(added, edges: merged.edges)
        return .adopted
    }
}
