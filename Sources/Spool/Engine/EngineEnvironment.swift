import Foundation

/// What every engine of one cache shares: the store, the policies, the codec of its blocks, the clock and
/// where problems and new bytes are reported.
struct EngineEnvironment: Sendable {
    let store: DiskStore
    let policy: FetchPolicy
    let codec: any BlockCodec
    let clock: any SpoolClock
    let problems: ProblemReporter
    /// The links to origin hosts as measured so far, shared by every resource of the cache.
    let link: LinkMonitor
    /// The blocks checked in this process, kept across an entry's close and reopening.
    let checked: CheckedBlocks
    /// Whether playback reads of the cache wait for origin bytes; requests that only reads ahead of playback
    /// wait for pause meanwhile.
    let gate: PlaybackGate
    /// Counts bytes served, fetched and evicted (`SpoolCache.statistics`).
    let statistics: StatisticsCounter
    /// What CMCD origin requests carry.
    let clientData: ClientDataPolicy
    /// Told how many bytes an engine is about to store, so limits are enforced as data is written: makes room
    /// for them when a check is due, and returns whether one was (then `limitsAfterWrite` runs once they are
    /// written).
    let willWrite: @Sendable (Int64) async -> Bool
    /// Enforces the limits again after a write that `willWrite` checked: a reader that moved on meanwhile
    /// leaves more behind it to evict, so the limits hold when its read returns.
    let limitsAfterWrite: @Sendable () async -> Void
    /// The most bytes a request receives ahead of its writes and writes as one batch (`ChunkPipe`).
    let writeBatchLimit: Int
}
