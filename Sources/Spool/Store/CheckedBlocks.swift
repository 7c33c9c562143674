import Foundation

/// The blocks this process has verified or written, per entry and version, kept when an entry closes: an
/// entry reopened a few seconds later (a player pausing, a server's next burst of range requests) need not
/// read and hash its blocks again before lending them.
///
/// Keyed by the version's salt and the data file's identity (inode, size, change time), so bytes of another
/// version, or written since by another process, are never taken for checked. An entry removed or evicted here is
/// forgotten. Bounded: the least recently kept entries go first.
final class CheckedBlocks: Sendable {
    private struct Kept {
        var salt: Data
        var file: [UInt64]
        var blocks: Set<Int64>
        var stamp: UInt64
    }

    private struct State {
        var entries: [String: Kept] = [:]
        var clock: UInt64 = 0
    }

    /// The most entries kept.
    static let capacity = 64

    private let state = LockedBox(State())

    /// Keeps the checked `blocks` of entry `key` for the version with `salt`, in the data file `file`
    /// (`EntryFile.identity`).
    func keep(_ blocks: Set<Int64>, key: String, salt: Data, file: [UInt64]) {
        state.withLock { state in
            state.clock += 1
            guard !blocks.isEmpty else {
                state.entries[key] = nil
                return
            }
            state.entries[key] = Kept(salt: salt, file: file, blocks: blocks, stamp: state.clock)
            if state.entries.count > Self.capacity,
                let oldest = state.entries.min(by: { $0.value.stamp < $1.value.stamp })?.key
            {
                state.entries[oldest] = nil
            }
        }
    }

    /// The checked blocks of entry `key` kept for the version with `salt` in data file `file`; none for another
    /// version or file.
    func take(key: String, salt: Data, file: [UInt64]) -> Set<Int64> {
        state.withLock { state in
            guard let kept = state.entries.removeValue(forKey: key), kept.salt == salt, kept.file == file,
                !file.isEmpty
            else { return [] }
            return kept.blocks
        }
    }

    /// Forgets entry `key`: its files were removed.
    func forget(key: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }
}
