import Foundation

/// Where a device's conditions come from: the system (`SystemConditions`), or an app or a test that sets them
/// (`SettableConditions`). A small protocol, so that an app with rules of its own (a setting "download on
/// cellular" it keeps elsewhere) can supply them.
public protocol ConditionsSource: Sendable {
    /// The conditions now.
    var current: DeviceConditions { get }
    /// The current conditions, then each change, until the consumer stops iterating.
    func updates() -> AsyncStream<DeviceConditions>
    /// The bytes free for important use on the volume of `directory`; `nil` when unknown. It may block on the
    /// file system, so it is asynchronous.
    func availableDiskBytes(at directory: URL) async -> Int64?
}
