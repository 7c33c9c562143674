import Foundation

/// What every engine of one cache shares: the store, the policies, the codec of its blocks, the clock and
/// where problems and new bytes are reported.
struct EngineEnvironment: Sendable {
    let store: DiskStore
    let policy: FetchPolicy
    let codec: any BlockCodec
    let clock: @Sendable () -> Date
    let problems: ProblemReporter
    /// The links to origin hosts as measured so far, shared by every resource of the cache.
    let link: LinkMonitor
    /// The blocks checked in this process, kept across an entry's close and reopening.
    let checked: CheckedBlocks
    /// Told how many bytes an engine is about to store, so limits are enforced as data is written; returns
    /// once any eviction that made room for them has run.
    let willWrite: @Sendable (Int64) async -> Void
    /// The most bytes a request receives ahead of its writes and writes as one batch (`ChunkPipe`).
    let writeBatchLimit: Int
}
