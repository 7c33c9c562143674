import Foundation

/// The playback reports of a cache taken together: startup and stall figures as a video dashboard shows them
/// (medians and tails), for every item and split by how much of each item's start was cached.
public struct PlaybackSummary: Sendable, Equatable, Codable {
    /// The figures of one group of reports.
    public struct Group: Sendable, Equatable, Codable {
        /// How many reports the group holds.
        public var items: Int
        /// Time to first byte, in seconds, over the reports that have one.
        public var timeToFirstByte: Percentiles?
        /// Time to start (`PlaybackReport.timeToStart`), in seconds, over the reports that have one.
        public var timeToStart: Percentiles?
        /// Rebuffering ratio over the reports whose player told it.
        public var rebufferingRatio: Percentiles?
        /// Stalls the players reported, summed (`nil` when no player reported any figure).
        public var stalls: Int?
        /// Waits of the players' reads on the origin, summed.
        public var originWaits: Int
        /// Bytes the players received from disk.
        public var bytesFromCache: Int64
        /// Bytes the players received from the origin.
        public var bytesFromOrigin: Int64
        /// Of `bytesFromCache`, those a preload or a download had fetched.
        public var bytesFromPreloadOrDownload: Int64

        /// The figures of `reports`.
        init(_ reports: [PlaybackReport]) {
            items = reports.count
            timeToFirstByte = Percentiles(reports.compactMap(\.timeToFirstByte))
            timeToStart = Percentiles(reports.compactMap(\.timeToStart))
            rebufferingRatio = Percentiles(reports.compactMap(\.rebufferingRatio))
            let reported = reports.compactMap(\.stalls)
            stalls = reported.isEmpty ? nil : reported.reduce(0, +)
            originWaits = reports.reduce(0) { $0 + $1.originWaits }
            bytesFromCache = reports.reduce(0) { $0 + $1.bytesFromCache }
            bytesFromOrigin = reports.reduce(0) { $0 + $1.bytesFromOrigin }
            bytesFromPreloadOrDownload = reports.reduce(0) { $0 + $1.bytesFromPreload + $1.bytesFromDownload }
        }
    }

    /// The median, 90th and 99th percentile of a set of figures (nearest rank).
    public struct Percentiles: Sendable, Equatable, Codable {
        /// The median.
        public var p50: Double
        /// The 90th percentile.
        public var p90: Double
        /// The 99th percentile.
        public var p99: Double

        /// The percentiles of `values`; `nil` for none.
        init?(_ values: [Double]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            // Nearest rank: the smallest value with at least that share of the values at or below it.
            func rank(_ share: Double) -> Double {
                sorted[max(0, min(sorted.count - 1, Int((share * Double(sorted.count)).rounded(.up)) - 1))]
            }
            (p50, p90, p99) = (rank(0.5), rank(0.9), rank(0.99))
        }
    }

    /// Every report.
    public var all: Group
    /// The items whose start came from disk; `nil` when there were none.
    public var fromCache: Group?
    /// The items whose start came partly from disk.
    public var partlyCached: Group?
    /// The items whose start came from the origin.
    public var cold: Group?

    /// The summary of `reports`.
    public init(_ reports: [PlaybackReport]) {
        all = Group(reports)
        let grouped = Dictionary(grouping: reports, by: \.start).mapValues(Group.init)
        (fromCache, partlyCached, cold) = (grouped[.fromCache], grouped[.partlyCached], grouped[.cold])
    }

    /// The group of the items with this kind of start; `nil` when there were none.
    public func group(_ start: PlaybackReport.Start) -> Group? {
        switch start {
        case .fromCache: fromCache
        case .partlyCached: partlyCached
        case .cold: cold
        }
    }
}
