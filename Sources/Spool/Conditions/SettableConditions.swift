import Foundation

/// Conditions an app or a test sets: every change reaches the transfers that wait on them at once. On Linux,
/// where no system source tells a network's cost, it is how tests drive the conditions.
package final class SettableConditions: ConditionsSource {
    private let broadcast: ConditionsBroadcast
    private let diskBytes: LockedBox<Int64?>

    /// A source that reports `conditions`, and `availableDiskBytes` free on every volume (`nil`: unknown).
    package init(_ conditions: DeviceConditions = DeviceConditions(), availableDiskBytes: Int64? = nil) {
        broadcast = ConditionsBroadcast(conditions)
        diskBytes = LockedBox(availableDiskBytes)
    }

    package var current: DeviceConditions {
        broadcast.current
    }

    /// Sets the conditions and tells every consumer of `updates()`.
    package func set(_ conditions: DeviceConditions) {
        broadcast.change { $0 = conditions }
    }

    /// Changes the conditions with `change` and tells every consumer of `updates()`.
    package func update(_ change: (inout DeviceConditions) -> Void) {
        broadcast.change(change)
    }

    /// Sets the free bytes reported for every volume (`nil`: unknown). Free space has no event: transfers see
    /// it when they next look.
    package func setAvailableDiskBytes(_ bytes: Int64?) {
        diskBytes.withLock { $0 = bytes }
    }

    package func updates() -> AsyncStream<DeviceConditions> {
        broadcast.updates()
    }

    package func availableDiskBytes(at directory: URL) async -> Int64? {
        diskBytes.withLock { $0 }
    }
}
