import Foundation

/// How much `spool bench run --link` measures per profile.
struct LinkBenchPlan: Sendable, Codable {
    /// The file read whole (the 20 MB) and sought in.
    var fileBytes: Int64
    /// Seeks in the player session over the link.
    var seeks: Int
    /// Bytes a player takes from each request of the session before hanging up.
    var playedPerRequest: ClosedRange<Int64>
    /// Runs per figure; each run starts every proxy anew with an empty cache.
    var runs: Int

    static let full = LinkBenchPlan(
        fileBytes: 20_000_000, seeks: 50, playedPerRequest: 128 * 1024...768 * 1024, runs: 3)
    static let quick = LinkBenchPlan(
        fileBytes: 20_000_000, seeks: 20, playedPerRequest: 128 * 1024...768 * 1024, runs: 2)
    static let tiny = LinkBenchPlan(fileBytes: 6_000_000, seeks: 4, playedPerRequest: 32 * 1024...96 * 1024, runs: 1)
}
