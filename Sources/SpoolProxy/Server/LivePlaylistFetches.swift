import Foundation
import NIOConcurrencyHelpers

/// When this proxy last fetched each live playlist from the origin (system uptime), by cache key; the most
/// recent 256.
final class LivePlaylistFetches: Sendable {
    private let times = NIOLockedValueBox<[String: TimeInterval]>([:])
    private static let capacity = 256

    func fetched(_ key: String, at time: TimeInterval) {
        times.withLockedValue { times in
            if times.count >= Self.capacity, times[key] == nil,
                let oldest = times.min(by: { $0.value < $1.value })?.key
            {
                times[oldest] = nil
            }
            times[key] = time
        }
    }

    func fetchTime(of key: String) -> TimeInterval? {
        times.withLockedValue { $0[key] }
    }
}
