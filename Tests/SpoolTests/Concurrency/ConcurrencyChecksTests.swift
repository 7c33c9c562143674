#if DEBUG
import Foundation
import XCTest

@testable import Spool

/// The debug checks of the written concurrency model see what they are for: a lock out of order, a leaf under a
/// leaf, blocking work under a lock or on a Swift task; and nothing where the model is kept.
final class ConcurrencyChecksTests: XCTestCase {
    func testLocksTakenInOrderPass() {
        let map = LockedBox(0, rank: .openEntries)
        let entry = LockedBox(0, rank: .entry)
        let leaf = LockedBox(0)
        let violations = ConcurrencyChecks.violations {
            map.withLock { _ in entry.withLock { _ in leaf.withLock { $0 += 1 } } }
            leaf.withLock { $0 += 1 }
        }
        XCTAssertEqual(violations, [])
    }

    func testALockTakenOutOfOrderIsCaught() {
        let map = LockedBox(0, rank: .openEntries)
        let entry = LockedBox(0, rank: .entry)
        let violations = ConcurrencyChecks.violations {
            entry.withLock { _ in map.withLock { $0 += 1 } }
        }
        XCTAssertEqual(violations.count, 1)
        XCTAssertTrue(violations.first?.contains("OpenEntries.engines") ?? false, "\(violations)")
        XCTAssertTrue(violations.first?.contains("while holding EntryContext.locked") ?? false, "\(violations)")
    }

    func testALeafUnderALeafIsCaught() {
        let first = LockedBox(0)
        let second = LockedBox(0)
        let violations = ConcurrencyChecks.violations {
            first.withLock { _ in second.withLock { $0 += 1 } }
        }
        XCTAssertEqual(violations.count, 1, "\(violations)")
    }

    func testBlockingWorkUnderALockIsCaught() throws {
        let directory = try scratchDirectory()
        let lock = LockedBox(0, rank: .entry)
        let violations = ConcurrencyChecks.violations {
            lock.withLock { _ in
                _ = try? EntryFile(url: directory.appendingPathComponent("file"))
            }
        }
        XCTAssertEqual(violations, ["Blocking work (opening a data file) under the lock EntryContext.locked"])
    }

    func testBlockingWorkOnASwiftTaskIsCaughtAndOnBlockingIOIsNot() async throws {
        let store = try DiskStore(directory: try scratchDirectory())
        let onTask = ConcurrencyChecks.violations { _ = store.keys() }
        XCTAssertEqual(onTask, ["Blocking work (listing the index) on a Swift task: run it on BlockingIO"])
        let onBlockingIO = try await BlockingIO.run { ConcurrencyChecks.violations { _ = store.keys() } }
        XCTAssertEqual(onBlockingIO, [])
    }

    func testBlockingWorkOffTasksAndLocksPasses() throws {
        let store = try DiskStore(directory: try scratchDirectory())
        // A synchronous test runs on the main thread, where no task runs: an app's own thread.
        XCTAssertEqual(ConcurrencyChecks.violations { _ = store.keys() }, [])
    }

    private func scratchDirectory() throws -> URL {
        let directory = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }
}
#endif
