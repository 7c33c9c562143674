import Foundation

/// When a transfer the user is not waiting for may run: on which networks, in Low Power Mode or not, up to which
/// heat, and how much free disk space it leaves. Downloads for offline and preloads of a feed each have their
/// own (`downloads`, `preloads`); a playback read never waits for any.
public struct TransferRules: Sendable, Equatable {
    /// Whether it runs on an expensive network (cellular, a marked hotspot).
    public var allowsExpensiveNetwork: Bool
    /// Whether it runs when the user asked to save data (Low Data Mode).
    public var allowsConstrainedNetwork: Bool
    /// Whether it runs in Low Power Mode.
    public var allowsLowPowerMode: Bool
    /// The hottest level it runs at; hotter, it waits.
    public var highestThermalLevel: ThermalLevel
    /// The free bytes it leaves on the cache's volume: below them it stops (0: no reserve).
    public var diskReserveBytes: Int64

    /// Rules; by default those of `downloads`.
    public init(
        allowsExpensiveNetwork: Bool = false, allowsConstrainedNetwork: Bool = false, allowsLowPowerMode: Bool = false,
        highestThermalLevel: ThermalLevel = .fair, diskReserveBytes: Int64 = 500_000_000
    ) {
        self.allowsExpensiveNetwork = allowsExpensiveNetwork
        self.allowsConstrainedNetwork = allowsConstrainedNetwork
        self.allowsLowPowerMode = allowsLowPowerMode
        self.highestThermalLevel = highestThermalLevel
        self.diskReserveBytes = max(0, diskReserveBytes)
    }

    /// Downloads for offline: Wi-Fi or wired only, not in Low Power Mode, not when the device runs seriously hot,
    /// and 500 MB left free. The user asked for them, but not for now: they can wait for a better moment.
    public static let downloads = TransferRules()

    /// Preloads of a feed: any network but a constrained one (the user asked to save data, and a preload is
    /// a guess), in Low Power Mode too (a few seconds of the next item spare the radio a wake-up later), not
    /// when the device runs seriously hot. No disk reserve: the cache's own limits bound what preloads store.
    public static let preloads = TransferRules(
        allowsExpensiveNetwork: true, allowsConstrainedNetwork: false, allowsLowPowerMode: true,
        highestThermalLevel: .fair, diskReserveBytes: 0)

    /// Why a transfer may not run under `conditions` with `availableDiskBytes` free (`nil`: unknown, no
    /// reason); empty when it may.
    public func blockers(in conditions: DeviceConditions, availableDiskBytes: Int64? = nil) -> [TransferBlocker] {
        var blockers: [TransferBlocker] = []
        if !conditions.hasNetwork { blockers.append(.noNetwork) }
        if conditions.isExpensive && !allowsExpensiveNetwork { blockers.append(.expensiveNetwork) }
        if conditions.isConstrained && !allowsConstrainedNetwork { blockers.append(.constrainedNetwork) }
        if conditions.isLowPowerMode && !allowsLowPowerMode { blockers.append(.lowPowerMode) }
        if conditions.thermalLevel > highestThermalLevel { blockers.append(.thermalLevel) }
        if let availableDiskBytes, diskReserveBytes > 0, availableDiskBytes < diskReserveBytes {
            blockers.append(.lowDiskSpace)
        }
        return blockers
    }
}

/// Why a transfer waits (`TransferRules.blockers(in:availableDiskBytes:)`).
public enum TransferBlocker: String, Sendable, Hashable, CaseIterable, Codable {
    /// No network at all.
    case noNetwork
    /// The network is expensive, and the rules do not allow it.
    case expensiveNetwork
    /// Low Data Mode is on, and the rules do not allow it.
    case constrainedNetwork
    /// Low Power Mode is on, and the rules do not allow it.
    case lowPowerMode
    /// The device runs hotter than the rules allow.
    case thermalLevel
    /// Less disk space is free than the rules' reserve.
    case lowDiskSpace
    /// The origin could not be reached (refused, reset, no answer): a download tries again after a wait that
    /// grows from 2 s to 5 minutes, and at once when the device's network comes back.
    case originUnreachable
    /// A preload waits: the bytes preloaded for items the player has not reached fill its byte budget
    /// (`PreloadConfiguration.byteBudget`, `SpoolConfiguration.preloadByteBudget`) until the player reaches one.
    case byteBudget
}
