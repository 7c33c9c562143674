#if os(Linux)
import Foundation

/// A value guarded by a lock.
///
/// The stand-in's objects are touched from the delegate queue, the simulator and — in a buggy adapter — any
/// thread at all; the stand-in must record such misuse, never crash on it, so every piece of shared state
/// goes through one of these.
final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

/// Carries a non-`Sendable` value into a dispatch block.
///
/// Apple's AVFoundation classes are not `Sendable`, and the stand-in keeps them that way so an adapter that
/// compiles here also compiles against the real framework. The stand-in itself has to hand requests and
/// delegates to the delegate queue; their state is lock-protected, which is what makes this box sound.
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
}

/// Monotonic seconds for timing measurements (wall-clock time can jump).
func monotonicSeconds() -> TimeInterval {
    TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
}
#endif
