import Foundation

/// What the device offers a transfer now: its network, its power and its heat. Downloads and preloads look at
/// it before each request and while they run (`TransferRules`); free disk space is asked for apart
/// (`ConditionsSource.availableDiskBytes(at:)`), since no event says when it changes.
public struct DeviceConditions: Sendable, Equatable {
    /// Whether any network path is available.
    public var hasNetwork: Bool
    /// Whether the network costs the user money: cellular, or a hotspot the system marks so
    /// (`NWPath.isExpensive`).
    public var isExpensive: Bool
    /// Whether the user asked apps to save data: Low Data Mode (`NWPath.isConstrained`).
    public var isConstrained: Bool
    /// Whether Low Power Mode is on (`ProcessInfo.isLowPowerModeEnabled`).
    public var isLowPowerMode: Bool
    /// How hot the device runs (`ProcessInfo.thermalState`).
    public var thermalLevel: ThermalLevel

    /// Conditions; by default a network that is neither expensive nor constrained, normal power and heat.
    public init(
        hasNetwork: Bool = true, isExpensive: Bool = false, isConstrained: Bool = false,
        isLowPowerMode: Bool = false, thermalLevel: ThermalLevel = .nominal
    ) {
        self.hasNetwork = hasNetwork
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.isLowPowerMode = isLowPowerMode
        self.thermalLevel = thermalLevel
    }
}

/// How hot a device runs, in the steps of `ProcessInfo.ThermalState`.
public enum ThermalLevel: Int, Sendable, Comparable, CaseIterable {
    /// No action needed.
    case nominal
    /// Slightly raised; the system starts to save power.
    case fair
    /// High; work the user did not ask for should stop.
    case serious
    /// Critical; only what the user needs now.
    case critical

    /// Whether `lhs` is cooler than `rhs`.
    public static func < (lhs: ThermalLevel, rhs: ThermalLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
