import Foundation

/// The physics of an emulated network link: round-trip time, one bandwidth cap shared by every connection,
/// how much each connection may have in flight, and optionally faults that recur on a seeded schedule.
public struct LinkProfile: Sendable, Hashable, CustomStringConvertible {
    /// A short name for command lines and reports, e.g. "broadband".
    public var name: String
    /// Round-trip time in seconds: a new connection waits this long before its first byte moves, and each
    /// byte takes half of it each way.
    public var roundTrip: TimeInterval
    /// The bandwidth cap in bits per second, per direction, shared by all connections.
    public var bitsPerSecond: Int
    /// Bytes one connection may have in flight per direction (read from the sender, not yet delivered);
    /// when full the link stops reading, so a slow reader pushes back on the sender.
    public var window: Int
    /// Faults that recur by themselves, or nil for a link that only fails on demand.
    public var faults: LinkFaultSchedule?

    /// A profile; `window` defaults to twice the bandwidth-delay product, at least 64 KiB, which keeps a
    /// single connection at full speed without letting an abandoned read waste much more than the link holds.
    public init(
        name: String, roundTrip: TimeInterval, bitsPerSecond: Int, window: Int? = nil,
        faults: LinkFaultSchedule? = nil
    ) {
        precondition(roundTrip >= 0, "a link's round trip cannot be negative")
        precondition(bitsPerSecond > 0, "a link needs a positive bandwidth")
        self.name = name
        self.roundTrip = roundTrip
        self.bitsPerSecond = bitsPerSecond
        self.faults = faults
        let product = Int((Double(bitsPerSecond) / 8 * roundTrip).rounded(.up))
        self.window = max(1, window ?? max(64 * 1024, 2 * product))
    }

    /// Bytes the link carries in one round trip: what must be in flight to keep it busy.
    public var bandwidthDelayProduct: Int {
        Int((Double(bitsPerSecond) / 8 * roundTrip).rounded(.up))
    }

    /// The cap in bytes per second.
    public var bytesPerSecond: Double { Double(bitsPerSecond) / 8 }

    /// E.g. "broadband (40 ms, 40 Mbit/s)".
    public var description: String {
        let milliseconds = (roundTrip * 1000).rounded()
        let megabits = Double(bitsPerSecond) / 1_000_000
        let rate = megabits == megabits.rounded() ? "\(Int(megabits))" : "\(megabits)"
        return "\(name) (\(Int(milliseconds)) ms, \(rate) Mbit/s\(faults == nil ? "" : ", faults"))"
    }

    /// A local network: 2 ms, 200 Mbit/s.
    public static let lan = LinkProfile(name: "lan", roundTrip: 0.002, bitsPerSecond: 200_000_000)

    /// Home broadband: 40 ms, 40 Mbit/s.
    public static let broadband = LinkProfile(name: "broadband", roundTrip: 0.040, bitsPerSecond: 40_000_000)

    /// A mobile network: 100 ms, 10 Mbit/s.
    public static let mobile = LinkProfile(name: "mobile", roundTrip: 0.100, bitsPerSecond: 10_000_000)

    /// Unreliable Wi-Fi: 60 ms, 8 Mbit/s, a 3 s blackout every 20 s and a reset of every connection in
    /// about one period in four.
    public static let flakyWiFi = LinkProfile(
        name: "flaky-wifi", roundTrip: 0.060, bitsPerSecond: 8_000_000,
        faults: LinkFaultSchedule(period: 20, blackout: 3, resetProbability: 0.25, seed: 12)
    )

    /// Every named profile, fastest first.
    public static let all: [LinkProfile] = [.lan, .broadband, .mobile, .flakyWiFi]

    /// The profile called `name` (as in `all`), or nil when there is none.
    public static func named(_ name: String) -> LinkProfile? {
        all.first { $0.name == name.lowercased() }
    }
}
