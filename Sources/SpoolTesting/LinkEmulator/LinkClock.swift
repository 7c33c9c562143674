import Dispatch
import Foundation

/// Monotonic nanoseconds, so wall-clock adjustments never stretch or shrink an emulated delay.
enum LinkClock {
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// Rounded down: a wait that ends early is resumed, one that ends late cannot be undone.
    static func milliseconds(_ nanoseconds: UInt64) -> Int32 {
        Int32(clamping: nanoseconds / 1_000_000)
    }

    /// Sleeps `nanoseconds` (nanosleep is accurate to well under a millisecond on an idle core).
    static func sleep(_ nanoseconds: UInt64) {
        guard nanoseconds > 0 else { return }
        Thread.sleep(forTimeInterval: Double(nanoseconds) / 1_000_000_000)
    }
}
