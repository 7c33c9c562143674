/// Whether a chunk's write goes round again (`ChunkWriter`): a write is planned under the entry's lock, done
/// off it and taken in under it again, so the entry may change in between (a discard, another process's bytes
/// adopted, a new version); then the same bytes are written again from a fresh plan. Damage found on the way
/// un-stores bytes the chunk may carry: it goes round until every byte of it that is not stored is written.
/// Each round is bounded, so an entry that keeps changing, or a disk that keeps failing checks, ends in an
/// error rather than a loop.
struct WriteRounds {
    /// How many rounds a chunk gets before it gives up.
    static let limit = 16

    private(set) var rounds = 0

    /// What follows a round.
    enum Next {
        /// The chunk is written and taken in.
        case done
        /// Plan and write it again.
        case again
        /// Give up with this error.
        case fail(any Error)
    }

    /// The plan found the entry still owing work (a version change, discards): catch up and plan again.
    mutating func planStale() -> Next {
        rounds += 1
        return rounds > Self.limit ? .fail(SpoolError.storage("the entry kept changing")) : .again
    }

    /// A write ended: `applied` says whether the entry was unchanged so its result was taken in, `failure` how
    /// the write failed part-way (what reached the disk is taken in all the same), `foundDamage` whether it
    /// found stored bytes damaged on the way.
    mutating func written(applied: Bool, failure: (any Error)?, foundDamage: Bool) -> Next {
        rounds += 1
        let exhausted = rounds > Self.limit
        if let failure, applied || exhausted { return .fail(failure) }
        guard applied else { return exhausted ? .fail(SpoolError.storage("the entry kept changing")) : .again }
        guard foundDamage else { return .done }
        return exhausted ? .fail(SpoolError.storage("stored bytes kept failing their checks")) : .again
    }
}
