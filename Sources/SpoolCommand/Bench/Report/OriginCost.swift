import Foundation

/// What the measurements of one row cost the origin, one count per run for each client.
struct OriginCost: Sendable, Encodable {
    var spool: [OriginRequestCount] = []
    var reference: [OriginRequestCount] = []
    var slice: [OriginRequestCount] = []

    /// The median requests of Spool, the reference and the nginx slice proxy: "12 / 1 / 20".
    var requestsText: String { medians(\.requests) }
    /// The same for the connections.
    var connectionsText: String { medians(\.connections) }

    private func medians(_ figure: KeyPath<OriginRequestCount, Int>) -> String {
        [spool, reference, slice].map { counts in
            BenchRow.median(counts.map { Double($0[keyPath: figure]) }).map { String(format: "%g", $0) } ?? "—"
        }
        .joined(separator: " / ")
    }
}
