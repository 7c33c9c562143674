import Foundation

/// Conditions an app or a test sets: every change reaches the transfers that wait on them at once. On Linux,
/// where no system source tells a network's cost, it is how tests drive the conditions.
public final class SettableConditions: ConditionsSource {
    private let broadcast: ConditionsBroadcast
    private let diskBytes: LockedBox<Int64?>

    /// A source that reports `conditions`, and `availableDiskBytes` free on every volume (`nil`: unknown).
    public init(_ conditions: DeviceConditions = DeviceConditions(), availableDiskBytes: Int64? = nil) {
        broadcast = ConditionsBroadcast(conditions)
        diskBytes = LockedBox(availableDiskBytes)
    }

    public var current: DeviceConditions {
        broadcast.current
    }

    /// Sets the conditions and tells every consumer of `updates()`.
    public func set(_ conditions: DeviceConditions) {
        broadcast.change { $0 = conditions }
    }

    /// Changes the conditions with `change` and tells every consumer of `updates()`.
    public func update(_ change: (inout DeviceConditions) -> Void) {
        broadcast.change(change)
    }

    /// Sets the free bytes reported for every volume (`nil`: unknown). Free space has no event: transfers see
    /// it when they next look.
    public func setAvailableDiskBytes(_ bytes: Int64?) {
        diskBytes.withLock { $0 = bytes }
    }

    public func updates() -> AsyncStream<DeviceConditions> {
        broadcast.updates()
    }

    public func availableDiskBytes(at directory: URL) async -> Int64? {
        diskBytes.withLock { $0 }
    }
}
