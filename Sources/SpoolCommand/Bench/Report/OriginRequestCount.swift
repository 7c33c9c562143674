import Foundation
import SpoolTesting

/// What one measurement cost the origin, from its access log: the requests, and the connections they came on
/// (nginx's `$connection`). Requests and connections are what rate limits, request-priced CDNs and a phone's
/// radio pay for, beside the bytes.
struct OriginRequestCount: Sendable, Encodable, Equatable {
    var requests: Int
    var connections: Int

    /// The entries of `log` whose request target `matches`.
    init(_ log: some Sequence<NginxLogEntry>, matching matches: (String) -> Bool) {
        let entries = log.filter { matches($0.path) }
        requests = entries.count
        connections = Set(entries.compactMap(\.connection)).count
    }
}
