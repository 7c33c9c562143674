import Foundation

/// The knobs of the engine's origin requests an app may want to set. Everything else the engine measures from
/// the link (round trip, throughput, handshakes, HTTP/2) or keeps to itself; see <doc:TheEngine>.
///
/// ```swift
/// var tuning = FetchTuning()
/// tuning.stallTimeout = 5  // a satellite link's long silences are not stalls
/// let configuration = SpoolConfiguration(fetchTuning: tuning)
/// ```
public struct FetchTuning: Sendable, Hashable {
    /// How many bandwidth-delay products of requests a read keeps ahead of its reader (1 by default). 1 keeps
    /// the link busy with the least waste when a player abandons a read (each seek abandons one); more starts
    /// long reads no faster on measured links and wastes more per seek, less starts slower.
    public var bandwidthDelayMultiple: Double
    /// Seconds a request whose last reader, a player's, hung up stays open for the player's next read to take
    /// it over (1.5 by default): players hang up and ask again nearby, and a request cancelled at once has its
    /// bytes in flight sent twice. 0 cancels at once.
    public var abandonedRequestGrace: TimeInterval
    /// Seconds without a byte after which a response is dropped and asked for again on a fresh connection,
    /// from its first missing byte (2 by default).
    public var stallTimeout: TimeInterval
    /// The same while the response's host answers other requests (8 by default): its bytes wait in a queue on
    /// a busy link, and dropping it would fetch them again.
    public var busyLinkStallTimeout: TimeInterval
    /// Seconds a link that went silent is waited out, with retries, before a read fails (12 by default).
    public var outageTolerance: TimeInterval

    /// The engine's defaults, which suit media over mobile and broadband networks.
    public init() {
        self.init(FetchPolicy())
    }

    /// The tuning `policy` carries.
    init(_ policy: FetchPolicy) {
        bandwidthDelayMultiple = policy.bandwidthDelayMultiple
        abandonedRequestGrace = policy.abandonedRequestGrace
        stallTimeout = policy.stallTimeout
        busyLinkStallTimeout = policy.busyLinkStallTimeout
        outageTolerance = policy.outageTolerance
    }

    /// Sets these knobs in `policy`.
    func apply(to policy: inout FetchPolicy) {
        policy.bandwidthDelayMultiple = bandwidthDelayMultiple
        policy.abandonedRequestGrace = abandonedRequestGrace
        policy.stallTimeout = stallTimeout
        policy.busyLinkStallTimeout = max(stallTimeout, busyLinkStallTimeout)
        policy.outageTolerance = outageTolerance
    }
}
