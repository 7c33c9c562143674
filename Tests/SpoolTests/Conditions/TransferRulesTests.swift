import Foundation
import XCTest

@testable import Spool

/// Which conditions stop a transfer, under the rules for downloads, for preloads and custom ones.
final class TransferRulesTests: XCTestCase {
    func testTheBlockersOfEachConditionUnderTheDownloadAndPreloadRules() {
        let cases: [(DeviceConditions, Int64?, downloads: [TransferBlocker], preloads: [TransferBlocker])] = [
            (DeviceConditions(), nil, [], []),
            (DeviceConditions(hasNetwork: false), nil, [.noNetwork], [.noNetwork]),
            (DeviceConditions(isExpensive: true), nil, [.expensiveNetwork], []),
            (DeviceConditions(isConstrained: true), nil, [.constrainedNetwork], [.constrainedNetwork]),
            (
                DeviceConditions(isExpensive: true, isConstrained: true), nil,
                [.expensiveNetwork, .constrainedNetwork],
                [.constrainedNetwork]
            ),
            (DeviceConditions(isLowPowerMode: true), nil, [.lowPowerMode], []),
            (DeviceConditions(thermalLevel: .fair), nil, [], []),
            (DeviceConditions(thermalLevel: .serious), nil, [.thermalLevel], [.thermalLevel]),
            (DeviceConditions(), 499_999_999, [.lowDiskSpace], []),
            (DeviceConditions(), 500_000_000, [], []),
            (DeviceConditions(), 0, [.lowDiskSpace], []),
        ]
        for (conditions, disk, downloads, preloads) in cases {
            XCTAssertEqual(
                TransferRules.downloads.blockers(in: conditions, availableDiskBytes: disk), downloads,
                "downloads, \(conditions), \(String(describing: disk)) bytes free")
            XCTAssertEqual(
                TransferRules.preloads.blockers(in: conditions, availableDiskBytes: disk), preloads,
                "preloads, \(conditions), \(String(describing: disk)) bytes free")
        }
    }

    func testRulesThatAllowEverythingWaitOnlyForANetwork() {
        let anything = TransferRules(
            allowsExpensiveNetwork: true, allowsConstrainedNetwork: true, allowsLowPowerMode: true,
            highestThermalLevel: .critical, diskReserveBytes: 0)
        let worst = DeviceConditions(
            isExpensive: true, isConstrained: true, isLowPowerMode: true, thermalLevel: .critical)
        XCTAssertEqual(anything.blockers(in: worst, availableDiskBytes: 0), [])
        XCTAssertEqual(anything.blockers(in: DeviceConditions(hasNetwork: false)), [.noNetwork])
        XCTAssertEqual(TransferRules(diskReserveBytes: -5).diskReserveBytes, 0, "a negative reserve is none")
    }
}

/// A source an app or a test sets, and the watch of what the conditions forbid a transfer.
final class SettableConditionsTests: XCTestCase {
    func testUpdatesStartWithTheCurrentConditionsAndCarryOnlyChanges() async {
        let source = SettableConditions(DeviceConditions(isExpensive: true))
        var updates = source.updates().makeAsyncIterator()
        let first = await updates.next()
        XCTAssertEqual(first, DeviceConditions(isExpensive: true))
        source.set(DeviceConditions(isExpensive: true))  // no change: nothing to tell
        source.update { $0.isExpensive = false }
        let second = await updates.next()
        XCTAssertEqual(second, DeviceConditions())
        XCTAssertEqual(source.current, DeviceConditions())
    }

    /// What a watch of `conditions` tells, each change once (a watch tells every look), until `last`.
    private func watched(
        _ conditions: TransferConditions, until last: [TransferBlocker], changing: @escaping @Sendable () -> Void
    ) async -> [[TransferBlocker]] {
        let (looks, told) = AsyncStream.makeStream(of: [TransferBlocker].self)
        let watch = Task {
            await conditions.watch(directory: FileManager.default.temporaryDirectory) { told.yield($0) }
        }
        defer { watch.cancel() }
        var seen: [[TransferBlocker]] = []
        for await look in looks where look != seen.last {
            seen.append(look)
            if look == last { break }
            changing()
        }
        return seen
    }

    func testAWatchTellsWhatTheConditionsForbidAtEachChange() async throws {
        let source = SettableConditions(DeviceConditions(isExpensive: true, isConstrained: true))
        let steps = LockedBox(0)
        let seen = await watched(TransferConditions(source: source, rules: .downloads), until: []) {
            switch steps.withLock({ step -> Int in
                step += 1
                return step
            }) {
            case 1: source.update { $0.isConstrained = false }
            default: source.update { $0.isExpensive = false }
            }
        }
        XCTAssertEqual(seen, [[.expensiveNetwork, .constrainedNetwork], [.expensiveNetwork], []])
    }

    func testAWatchLooksAtTheFreeSpaceAgainAtEachChange() async throws {
        let source = SettableConditions(availableDiskBytes: 1_000)
        let rules = TransferRules(diskReserveBytes: 10_000)
        let seen = await watched(TransferConditions(source: source, rules: rules), until: []) {
            source.setAvailableDiskBytes(20_000)
            // Free space has no event: the next change of the conditions makes the watch look again.
            source.update { $0.thermalLevel = .fair }
        }
        XCTAssertEqual(seen, [[.lowDiskSpace], []])
    }

    func testTheSystemsConditionsOnLinuxAreAFreeNetworkAndTheVolumesFreeSpace() async throws {
        #if os(Linux)
        XCTAssertEqual(SystemConditions.shared.current, DeviceConditions())
        let free = await SystemConditions.shared.availableDiskBytes(at: FileManager.default.temporaryDirectory)
        let expected =
            try FileManager.default.attributesOfFileSystem(
                forPath: FileManager.default.temporaryDirectory.path)[.systemFreeSize] as? NSNumber
        let bytes = try XCTUnwrap(free)
        XCTAssertGreaterThan(bytes, 0)
        // Free space moves with whatever else writes: the same volume, within 1 GB.
        XCTAssertLessThan(abs(bytes - (expected?.int64Value ?? 0)), 1_000_000_000)
        #endif
    }
}
