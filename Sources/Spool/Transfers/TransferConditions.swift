import Foundation

/// The device conditions a transfer runs under: where they come from, the rules they must meet, and how often
/// free disk space is looked at again while a transfer waits for it (free space has no event).
package struct TransferConditions: Sendable {
    /// Where the conditions come from.
    package let source: any ConditionsSource
    /// What they must allow.
    package let rules: TransferRules
    /// Seconds between looks at the free space while the rules keep a reserve.
    package let diskRecheckInterval: TimeInterval

    package init(source: any ConditionsSource, rules: TransferRules, diskRecheckInterval: TimeInterval = 10) {
        self.source = source
        self.rules = rules
        self.diskRecheckInterval = diskRecheckInterval
    }

    /// Whether `other` is the same source under the same rules: their transfers share one watcher.
    func isSameGroup(as other: TransferConditions) -> Bool {
        (source as AnyObject) === (other.source as AnyObject) && rules == other.rules
            && diskRecheckInterval == other.diskRecheckInterval
    }

    /// What the conditions forbid now, free disk space included where the rules keep a reserve.
    func blockers(directory: URL) async -> [TransferBlocker] {
        let disk = rules.diskReserveBytes > 0 ? await source.availableDiskBytes(at: directory) : nil
        return rules.blockers(in: source.current, availableDiskBytes: disk)
    }

    /// Tells `report` what the conditions forbid, now and at each change (and, with a disk reserve, every
    /// `diskRecheckInterval` seconds), until cancelled. Every look is told, unchanged ones too: a running
    /// transfer that found the disk full told the schedule so itself, and the next look must be able to undo it.
    func watch(directory: URL, report: @escaping @Sendable ([TransferBlocker]) -> Void) async {
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let updates = source.updates()
        let forward = Task {
            for await _ in updates { wake.yield() }
            wake.finish()
        }
        let (reserve, interval) = (rules.diskReserveBytes, diskRecheckInterval)
        let ticks = Task {
            guard reserve > 0 else { return }
            let nanoseconds = UInt64(max(0.001, interval) * 1_000_000_000)
            // Bounded by the watch: cancelled when it ends.
            while (try? await Task.sleep(nanoseconds: nanoseconds)) != nil { wake.yield() }
        }
        defer {
            forward.cancel()
            ticks.cancel()
        }
        for await _ in wakes {
            guard !Task.isCancelled else { return }
            let now = await blockers(directory: directory)
            guard !Task.isCancelled else { return }
            report(now)
        }
    }
}
