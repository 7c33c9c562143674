import Foundation

/// How big and how long `spool bench run` measures: the full mode the issue describes, `--quick` (under two
/// minutes on two cores) and a hidden tiny mode that exercises the harness in seconds for the tests.
struct BenchPlan: Sendable, Codable {
    /// "full", "quick" or "tiny".
    var mode: String
    /// The file of the throughput, TTFB and concurrency scenarios (1, 2, 3, 4, 7).
    var throughputBytes: Int64
    /// The file of the player session (5).
    var sessionBytes: Int64
    /// The file streamed while memory is watched (6).
    var memoryBytes: Int64
    /// Seeks in one player session.
    var seeks: Int
    /// The bytes a player takes from each request before cancelling it: the smallest and the largest.
    var playedPerRequest: ClosedRange<Int64>
    /// Clients streaming at once in the memory scenario.
    var clients: Int
    /// wrk connections.
    var connections: Int
    /// wrk's duration per measurement, in seconds.
    var wrkSeconds: Int
    /// Samples per run for the first-byte times (each a new connection).
    var firstByteSamples: Int
    /// Seconds of the generated video ffmpeg remuxes.
    var videoSeconds: Int
    /// Runs of every scenario but memory; the table shows medians.
    var runs: Int
    /// Runs of the memory scenario, the slowest (100 cold clients at once).
    var memoryRuns: Int

    private static let mebibyte: Int64 = 1 << 20

    /// The sizes: 1 GiB, 200 MiB, 2 GiB, 5 runs.
    static let full = BenchPlan(
        mode: "full", throughputBytes: 1024 * mebibyte, sessionBytes: 200 * mebibyte, memoryBytes: 2048 * mebibyte,
        seeks: 50, playedPerRequest: 256 * 1024...768 * 1024, clients: 100, connections: 100, wrkSeconds: 10,
        firstByteSamples: 10, videoSeconds: 60, runs: 5, memoryRuns: 3)

    /// Smaller files and shorter loads, same shapes: under two minutes on a 2-core machine.
    static let quick = BenchPlan(
        mode: "quick", throughputBytes: 256 * mebibyte, sessionBytes: 200 * mebibyte, memoryBytes: 512 * mebibyte,
        seeks: 50, playedPerRequest: 256 * 1024...768 * 1024, clients: 100, connections: 100, wrkSeconds: 2,
        firstByteSamples: 5, videoSeconds: 20, runs: 3, memoryRuns: 1)

    /// Every scenario in seconds (a debug build is fine): for tests of the harness, not for figures.
    static let tiny = BenchPlan(
        mode: "tiny", throughputBytes: 4 * mebibyte, sessionBytes: 16 * mebibyte, memoryBytes: 8 * mebibyte,
        seeks: 50, playedPerRequest: 16 * 1024...64 * 1024, clients: 100, connections: 100, wrkSeconds: 1,
        firstByteSamples: 2, videoSeconds: 2, runs: 1, memoryRuns: 1)
}
