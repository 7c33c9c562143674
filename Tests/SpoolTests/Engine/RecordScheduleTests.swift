import Foundation
import XCTest

@testable import Spool

/// When the index record lags and when it is written (`EngineState+RecordSchedule`): what makes it lag, when a write is
/// queued and how soon, and which writes must sync the data first. Table-driven, no I/O.
final class RecordScheduleTests: XCTestCase {
    private let info = ContentInfo(length: 1_000_000, entityTag: "\"v1\"")
    private let policy = FetchPolicy(indexInterval: 4 << 20)
    private let opened = Date(timeIntervalSince1970: 1_000_000)

    /// A known resource whose record was just written at uptime 10.
    private func upToDate() -> EngineState {
        var state = EngineState(policy: policy, info: info, stored: ByteRangeSet(), created: opened)
        _ = state.setPinned(true)
        _ = state.takeRecordForWrite(at: 10)
        XCTAssertFalse(state.record.lags)
        return state
    }

    func testWhatMakesTheRecordLag() {
        let rows: [(name: String, change: (inout EngineState) -> Void, lags: Bool, needsSync: Bool)] = [
            ("nothing", { _ in }, false, false),
            ("bytes written", { $0.wrote(65_536, at: 11) }, true, true),
            ("nothing written", { $0.wrote(0, at: 11) }, false, false),
            ("bytes another process stored", { $0.gained(ByteRangeSet([0..<1000])) }, true, false),
            ("bytes lost", { $0.lost([0..<1000]) }, false, false),
            (
                "a new version",
                {
                    _ = $0.absorb(
                        ContentInfo(length: 2_000_000, entityTag: "\"v2\""), servedFrom: 0, requested: 0, fetch: 0)
                }, true, false
            ),
            (
                "the same version completed", { _ = $0.absorb(self.info, servedFrom: 0, requested: 0, fetch: 0) },
                false, false
            ),
            ("pinned again", { _ = $0.setPinned(true) }, false, false),
            ("unpinned", { _ = $0.setPinned(false) }, true, false),
            ("used half a second after the last saved use", { $0.accessed(at: self.opened + 0.5) }, false, false),
            ("used a second after", { $0.accessed(at: self.opened + 1) }, true, false),
        ]
        for row in rows {
            var state = upToDate()
            // The record saved at 10 holds the last access of the open.
            row.change(&state)
            XCTAssertEqual(state.record.lags, row.lags, row.name)
            let taken = state.takeRecordForWrite(at: 20)
            XCTAssertEqual(taken != nil, row.lags, "\(row.name): a write takes it")
            XCTAssertEqual(taken?.needsSync ?? false, row.needsSync, "\(row.name): a sync first")
            XCTAssertNil(state.takeRecordForWrite(at: 21), "\(row.name): up to date after the write")
        }
    }

    func testLostBytesMakeItLagOnlyWhenThereWereAny() {
        var state = EngineState(policy: policy, info: info, stored: ByteRangeSet([0..<5000]), created: opened)
        state.lost([0..<1000])
        XCTAssertTrue(state.record.lags, "bytes it claimed are gone")
    }

    func testWhenAWriteIsQueued() {
        let rows: [(name: String, lastWrite: Double?, queued: Bool, settled: Bool, now: Double, expected: Double?)] =
            [
                ("the first write, something running: at once", nil, false, false, 0, 0),
                ("one second after the last: in a second", 10, false, false, 11, 1),
                ("two seconds after: at once", 10, false, false, 12, 0),
                ("one queued already: no other", 10, true, false, 11, nil),
                ("one queued, nothing runs: at once", 10, true, true, 11, 0),
                ("nothing runs: at once", 10, false, true, 10.5, 0),
            ]
        for row in rows {
            var state = EngineState(policy: policy, info: info, stored: ByteRangeSet(), created: opened)
            if let lastWrite = row.lastWrite {
                _ = state.setPinned(true)
                _ = state.takeRecordForWrite(at: lastWrite)
            }
            if row.queued {
                state.wrote(1, at: row.now)
                XCTAssertNotNil(state.recordWriteWanted(settled: false, at: row.now))
            }
            state.wrote(1, at: row.now)
            XCTAssertEqual(state.recordWriteWanted(settled: row.settled, at: row.now), row.expected, row.name)
        }
        var state = EngineState(policy: policy, info: info, stored: ByteRangeSet(), created: opened)
        XCTAssertNil(state.recordWriteWanted(settled: true, at: 0), "an up-to-date record is not written")
    }

    func testADownloadAsksForAWriteEveryIndexIntervalAtMostEveryTwoSeconds() {
        var state = upToDate()
        XCTAssertEqual(state.actions { $0.wrote(2 << 20, at: 11) }, [], "half the interval")
        XCTAssertEqual(
            state.actions { $0.wrote(2 << 20, at: 11.5) }, [], "the interval, but too soon after the last write")
        XCTAssertEqual(state.actions { $0.wrote(1, at: 12) }, [.flushRecordSoon], "the interval, two seconds on")
    }

    func testAnUnknownResourcesRecordIsNotWritten() {
        var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet(), created: opened)
        _ = state.setPinned(true)
        XCTAssertNil(state.takeRecordForWrite(at: 1))
        XCTAssertFalse(state.accessed(at: opened + 5), "nothing to record a use in")
    }
}
