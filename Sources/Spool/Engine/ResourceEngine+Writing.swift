import Foundation

/// The write-through of what origin requests receive: each chunk's new bytes to the data file and their
/// checksums, and what that tells the state.
extension ResourceEngine {
    /// Writes the parts of `chunk` (at resource `offset`) that are not stored yet; returns whether request
    /// `id` wants more, or `nil` when nothing could be written until the old version's file slices are back.
    func store(_ chunk: Data, at offset: Int64, fetch id: Int) throws -> Bool? {
        let range = offset..<(offset + Int64(chunk.count))
        let outcome = inner.withLock {
            inner -> Result<(more: Bool, flushDue: Bool, damaged: [Range<Int64>])?, any Error> in
            var damaged: [Range<Int64>] = []
            do {
                if inner.truncatePending {
                    guard inner.leases.isEmpty else { return .success(nil) }
                    try emptyFileForNewVersion(&inner)
                }
                // Damage found on the way un-stores bytes, some of which this chunk may carry: go round
                // until every byte of the chunk that is not stored has been written.
                while true {
                    guard let parts = inner.state.unstoredParts(of: range, fetch: id) else {
                        return .success((false, false, damaged))
                    }
                    if parts.isEmpty { break }
                    let file = try inner.openFile(environment, key: key)
                    let salt = inner.salt(key: key)
                    var found: [Range<Int64>] = []
                    // The file says block by block what it now holds, even when it fails half-way; the state
                    // learns the difference.
                    let before = inner.state.stored
                    var present = before
                    defer { reportDiskChange(from: before, to: present, in: &inner) }
                    for part in parts {
                        let start = chunk.startIndex + Int(part.lowerBound - offset)
                        let bytes = chunk[start..<(start + Int(part.upperBound - part.lowerBound))]
                        found += try file.write(
                            bytes, at: part.lowerBound, present: &present, edges: &inner.edgeSums,
                            trusted: &inner.trusted, hashers: &inner.hashers, length: inner.state.info?.length ?? 0,
                            salt: salt)
                    }
                    let now = environment.clock()
                    for block in BlockLayout.blocks(in: range) { inner.blockUse[block] = now }
                    if found.isEmpty { break }
                    // Already out of `stored`; their blocks' slots are cleared.
                    for range in found { try? file.discard(range) }
                    inner.dirty = true
                    damaged += found
                }
            } catch {
                return .failure(error)
            }
            let more = inner.state.didStore(range, fetch: id)
            inner.unflushedBytes += Int64(chunk.count)
            inner.dirty = true
            inner.unsynced = true
            // A fast download would sync every few milliseconds: at most a few times a second is enough to
            // keep what a crash costs small (bytes not yet claimed are fetched again, never served wrong).
            let flushDue =
                inner.unflushedBytes >= policy.indexInterval
                && ProcessInfo.processInfo.systemUptime - inner.lastFlush >= Self.minimumFlushInterval
            return .success((more, flushDue, damaged))
        }
        switch outcome {
        case .failure(let error):
            if case .storage(let reason) = error as? SpoolError { environment.problems.report(.storageFailed(reason)) }
            throw error
        case .success(nil):
            return nil
        case .success(let result?):
            environment.problems.storageWorked(Int64(chunk.count))
            for range in result.damaged {
                environment.problems.report(.corruptData(url: CacheKeyPolicy.displayURL(for: url), range: range))
            }
            environment.didWrite(Int64(chunk.count))
            if result.flushDue { flushSoon() }
            return result.more
        }
    }

    /// Tells the state what a write did to the bytes on disk: `before` became `after`.
    private func reportDiskChange(from before: ByteRangeSet, to after: ByteRangeSet, in inner: inout Inner) {
        var gained = after
        var lost = before
        for range in before.ranges { gained.remove(range) }
        for range in after.ranges { lost.remove(range) }
        inner.state.lost(lost.ranges)
        inner.state.gained(gained)
    }
}
