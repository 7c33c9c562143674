import Foundation

/// What every loader of one cache shares: the store, the policies, the codec of its blocks, the clock and
/// where problems and new bytes are reported.
struct LoaderEnvironment: Sendable {
    let store: DiskStore
    let policy: FetchPolicy
    let codec: any BlockCodec
    let clock: @Sendable () -> Date
    let problems: ProblemReporter
    /// The links to origin hosts as measured so far, shared by every resource of the cache.
    let link: LinkMonitor
    /// Told how many bytes a loader just stored, so limits are enforced as data is written.
    let didWrite: @Sendable (Int64) -> Void
}
