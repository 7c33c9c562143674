/// Another process's index record was read (`IndexWriter.adoptStoredElsewhere`): which of the bytes it claims
/// this engine takes in. The driver reads the record off the lock and does what the verdict says to what it
/// owns (the record's stamp, block trust, the partial blocks' checksums, running hashers, waiting readers).
extension EngineState {
    /// What to do with another process's record.
    enum OtherRecordVerdict: Equatable {
        /// Nothing now, and look again later: a version change is under way (the data file's bytes are the
        /// old version's whatever a record says) or the content information is unknown.
        case later
        /// Nothing to take in: another version, or no bytes this engine lacks. The record has been seen.
        case nothingNew
        /// These bytes are taken in (`stored` has them now; their blocks are unchecked here), and the
        /// partial blocks' checksums become `edges`.
        case adopt(added: ByteRangeSet, edges: EdgeSums)
    }

    /// Another process's record claims `theirs` of the version `theirInfo`. This engine holds `edges` for its
    /// own partial blocks and found `distrusted` damaged here: those are never taken back from a record, or
    /// a reader could go round between adopting and rejecting them. Merging only adds (a side's bytes are
    /// replaced only by a side that holds them all; see `EntryClaims.merged`).
    mutating func otherRecordRead(
        _ theirs: EntryClaims, of theirInfo: ContentInfo, edges: EdgeSums, distrusted: ByteRangeSet
    ) -> OtherRecordVerdict {
        guard !isResetting, let info else { return .later }
        guard !theirInfo.isDifferentVersion(from: info) else { return .nothingNew }
        var offered = theirs.ranges
        for range in distrusted.ranges { offered.remove(range) }
        let merged = EntryClaims(ranges: stored, edges: edges)
            .merged(with: EntryClaims(ranges: offered, edges: theirs.edges), length: info.length)
        guard merged.ranges != stored else { return .nothingNew }
        var added = merged.ranges
        for range in stored.ranges { added.remove(range) }
        gained(added)
        return .adopt(added: added, edges: merged.edges)
    }
}
