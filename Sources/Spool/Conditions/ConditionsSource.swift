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

extension ConditionsSource {
    /// Returns once `rules` let a transfer run (at once if they do) with the blockers seen meanwhile told to
    /// `waiting` as they change; throws `CancellationError` if the task is cancelled first. Woken by changes of
    /// the conditions; free disk space, which has no event, is looked at again at each.
    func waitUntilAllowed(
        by rules: TransferRules, directory: URL, waiting: @Sendable ([TransferBlocker]) -> Void
    ) async throws {
        func disk() async -> Int64? {
            guard rules.diskReserveBytes > 0 else { return nil }
            return await availableDiskBytes(at: directory)
        }
        if rules.blockers(in: current, availableDiskBytes: await disk()).isEmpty { return }
        var told: [TransferBlocker] = []
        for await conditions in updates() {
            try Task.checkCancellation()
            let blockers = rules.blockers(in: conditions, availableDiskBytes: await disk())
            if blockers.isEmpty { return }
            if blockers != told {
                told = blockers
                waiting(blockers)
            }
        }
        try Task.checkCancellation()
    }
}
