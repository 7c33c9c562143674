import Foundation

/// Where a device's conditions come from. Preloaders and download queues watch the device's own
/// (`NWPathMonitor`, `ProcessInfo`, the volume's free space) unless they are given another source: an app that
/// learns the network's cost its own way, or its tests, which set the conditions they need.
public protocol ConditionsSource: Sendable {
    /// The conditions now.
    var current: DeviceConditions { get }
    /// The current conditions, then each change, until the consumer stops iterating.
    func updates() -> AsyncStream<DeviceConditions>
    /// The bytes free for important use on the volume of `directory`; `nil` when unknown. It may block on the
    /// file system, so it is asynchronous.
    func availableDiskBytes(at directory: URL) async -> Int64?
}
