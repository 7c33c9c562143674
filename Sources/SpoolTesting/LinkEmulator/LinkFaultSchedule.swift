import Foundation

/// Faults a link commits by itself, fixed by a seed so a failing run fails the same way again.
///
/// Time is cut into periods from the moment the emulator starts. Every period after the first opens with a
/// blackout; in any period, with `resetProbability`, every connection is also reset once, at a seeded moment
/// after the blackout.
public struct LinkFaultSchedule: Sendable, Hashable {
    /// Seconds from one blackout to the next.
    public var period: TimeInterval
    /// Seconds each blackout lasts (no byte moves; connections stay open).
    public var blackout: TimeInterval
    /// The chance, per period, that every open connection is reset.
    public var resetProbability: Double
    /// Fixes which periods have a reset, and when.
    public var seed: UInt64

    /// A schedule; `blackout` 0 means resets only, `resetProbability` 0 blackouts only.
    public init(period: TimeInterval, blackout: TimeInterval, resetProbability: Double = 0, seed: UInt64 = 1) {
        precondition(period > 0 && blackout >= 0 && blackout < period, "a blackout must fit in its period")
        self.period = period
        self.blackout = blackout
        self.resetProbability = min(1, max(0, resetProbability))
        self.seed = seed
    }

    /// One fault at a moment measured from the emulator's start.
    public struct Event: Sendable, Hashable {
        /// What happens.
        public enum Kind: Sendable, Hashable {
            /// No byte moves for this many seconds.
            case blackout(TimeInterval)
            /// Every open connection is reset.
            case resetAll
        }

        /// Seconds after the emulator started.
        public var time: TimeInterval
        /// The fault.
        public var kind: Kind

        /// `kind` at `time` seconds after the emulator started.
        public init(time: TimeInterval, kind: Kind) {
            self.time = time
            self.kind = kind
        }
    }

    /// The faults of period `index` (0 is the first), in time order; the same for the same seed.
    public func events(inPeriod index: Int) -> [Event] {
        let start = Double(index) * period
        var events: [Event] = []
        if index > 0 && blackout > 0 {
            events.append(Event(time: start, kind: .blackout(blackout)))
        }
        // A generator per period, so the answer does not depend on which periods were asked about before.
        var generator = SeededGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
        let draw = Double.random(in: 0..<1, using: &generator)
        let moment = Double.random(in: 0..<1, using: &generator)
        if draw < resetProbability {
            events.append(Event(time: start + blackout + moment * (period - blackout), kind: .resetAll))
        }
        return events
    }
}
