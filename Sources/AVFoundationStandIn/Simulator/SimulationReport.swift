#if os(Linux)
import Foundation

/// What a simulated playback found.
public struct SimulationReport: Sendable, Equatable {
    /// Checks that held (bytes compared, requests accepted, content information valid, …).
    public var checksPassed: Int
    /// Every contract violation, naming the request; empty when the delegate behaved.
    public var failures: [String]
    /// Correct bytes delivered to the player.
    public var bytesPlayed: Int64
    /// From issuing the first data request to its first `respond(with:)`; `nil` if it got none.
    public var timeToFirstByte: TimeInterval?
    /// The longest time the player waited for anything (a respond or a finish) while a request was open
    /// and not yet satisfied.
    public var longestWait: TimeInterval
    /// Requests issued.
    public var requests: Int
    /// Requests the delegate finished with `NSURLErrorCancelled` after the app gave up on the asset
    /// (dropped it or called `cancelLoading()`), as it must: AVFoundation does not cancel them.
    public var requestsReleased: Int
    /// What the delegate left in `isEntireLengthAvailableOnDemand` when it finished the last
    /// content-information request that had it set; `nil` when it never set it.
    public var entireLengthAvailableOnDemand: Bool?

    /// True when nothing failed.
    public var passed: Bool { failures.isEmpty }

    /// Creates a report.
    public init(
        checksPassed: Int = 0, failures: [String] = [], bytesPlayed: Int64 = 0,
        timeToFirstByte: TimeInterval? = nil, longestWait: TimeInterval = 0, requests: Int = 0,
        requestsReleased: Int = 0
    ) {
        self.checksPassed = checksPassed
        self.failures = failures
        self.bytesPlayed = bytesPlayed
        self.timeToFirstByte = timeToFirstByte
        self.longestWait = longestWait
        self.requests = requests
        self.requestsReleased = requestsReleased
    }

    /// Adds `other` (a later phase of the same item): counts add up, the first time to first byte and
    /// the longest wait win.
    public mutating func merge(_ other: SimulationReport) {
        checksPassed += other.checksPassed
        failures += other.failures
        bytesPlayed += other.bytesPlayed
        timeToFirstByte = timeToFirstByte ?? other.timeToFirstByte
        longestWait = max(longestWait, other.longestWait)
        requests += other.requests
        requestsReleased += other.requestsReleased
        entireLengthAvailableOnDemand = other.entireLengthAvailableOnDemand ?? entireLengthAvailableOnDemand
    }
}
#endif
