import Foundation

#if canImport(Network)
import Network
#endif

/// The device's own conditions: the network's cost and Low Data Mode from `NWPathMonitor`, Low Power Mode and
/// the thermal state from `ProcessInfo` and its notifications, free space from the volume. Where the system
/// tells none of them (Linux), the network is taken as free and unconstrained and power and heat as normal;
/// free space is still the volume's.
///
/// One per process (`shared`): it watches from its first use until the process ends.
package final class SystemConditions: ConditionsSource {
    /// The process's system conditions.
    package static let shared = SystemConditions()

    private let broadcast = ConditionsBroadcast(DeviceConditions())
    /// Where the path monitor and the notifications report.
    private let queue = DispatchQueue(label: "Spool.SystemConditions")
    #if canImport(Network)
    private let monitor = NWPathMonitor()
    #endif
    /// Starts watching the system; its observers stay for the life of the process, as `shared` does.
    private init() {
        #if canImport(Darwin)
        let info = ProcessInfo.processInfo
        broadcast.change {
            $0.isLowPowerMode = info.isLowPowerModeEnabled
            $0.thermalLevel = Self.level(of: info.thermalState)
        }
        let center = NotificationCenter.default
        _ = center.addObserver(forName: .NSProcessInfoPowerStateDidChange, object: nil, queue: nil) { [weak self] _ in
            self?.broadcast.change { $0.isLowPowerMode = ProcessInfo.processInfo.isLowPowerModeEnabled }
        }
        _ = center.addObserver(forName: ProcessInfo.thermalStateDidChangeNotification, object: nil, queue: nil) {
            [weak self] _ in
            self?.broadcast.change { $0.thermalLevel = Self.level(of: ProcessInfo.processInfo.thermalState) }
        }
        #endif
        #if canImport(Network)
        monitor.pathUpdateHandler = { [weak self] path in
            self?.broadcast.change {
                $0.hasNetwork = path.status == .satisfied
                $0.isExpensive = path.isExpensive
                $0.isConstrained = path.isConstrained
            }
        }
        monitor.start(queue: queue)
        #endif
    }

    package var current: DeviceConditions {
        broadcast.current
    }

    package func updates() -> AsyncStream<DeviceConditions> {
        broadcast.updates()
    }

    package func availableDiskBytes(at directory: URL) async -> Int64? {
        try? await BlockingIO.run { Self.freeBytes(at: directory) }
    }

    /// The bytes free on the volume of `directory` (or of its nearest existing parent), blocking.
    private static func freeBytes(at directory: URL) -> Int64? {
        BlockingIO.willBlock("the volume's free space")
        var url = directory
        for _ in 0..<64 where !FileManager.default.fileExists(atPath: url.path) {
            url.deleteLastPathComponent()
        }
        #if canImport(Darwin)
        // What the system would free for something the user asked for (purgeable space counts), as iOS's own
        // downloads reckon it.
        if let values = try? url.resourceValues(forKeys: [.volumeAvailableCapacityForImportantUsageKey]),
            let important = values.volumeAvailableCapacityForImportantUsage
        {
            return important
        }
        #endif
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: url.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value
    }

    #if canImport(Darwin)
    private static func level(of state: ProcessInfo.ThermalState) -> ThermalLevel {
        switch state {
        case .nominal: return .nominal
        case .fair: return .fair
        case .serious: return .serious
        case .critical: return .critical
        @unknown default: return .critical
        }
    }
    #endif
}
