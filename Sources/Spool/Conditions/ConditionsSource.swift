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
    /// the conditions; free disk space, which has no event, is looked at again at each, and every
    /// `diskRecheckInterval` seconds while the rules keep a reserve (space freed by the user or the system).
    func waitUntilAllowed(
        by rules: TransferRules, directory: URL, diskRecheckInterval: TimeInterval = 10,
        waiting: @Sendable ([TransferBlocker]) -> Void
    ) async throws {
        func disk() async -> Int64? {
            guard rules.diskReserveBytes > 0 else { return nil }
            return await availableDiskBytes(at: directory)
        }
        if rules.blockers(in: current, availableDiskBytes: await disk()).isEmpty { return }
        // One stream of wake-ups: each change of the conditions and, with a reserve, a tick. Only the newest
        // matters: every wake-up reads the conditions as they are.
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let updates = updates()
        let forward = Task {
            for await _ in updates { wake.yield() }
            wake.finish()
        }
        let ticks = Task {
            guard rules.diskReserveBytes > 0 else { return }
            let nanoseconds = UInt64(max(0.001, diskRecheckInterval) * 1_000_000_000)
            // Bounded by the wait: cancelled when it returns.
            while (try? await Task.sleep(nanoseconds: nanoseconds)) != nil { wake.yield() }
        }
        defer {
            forward.cancel()
            ticks.cancel()
        }
        var told: [TransferBlocker] = []
        for await _ in wakes {
            try Task.checkCancellation()
            let blockers = rules.blockers(in: current, availableDiskBytes: await disk())
            if blockers.isEmpty { return }
            if blockers != told {
                told = blockers
                waiting(blockers)
            }
        }
        try Task.checkCancellation()
    }
}
