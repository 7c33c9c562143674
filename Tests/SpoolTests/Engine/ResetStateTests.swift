import Foundation
import XCTest

@testable import Spool

/// What `EngineState` has the driver do on disk after a version change (`+Reset`): the record first, then the
/// data file once no old slice is out, or both files removed when the resource is unknown; a version that comes
/// in the middle starts the work over. Table-driven, no I/O.
final class ResetStateTests: XCTestCase {
    private let v1 = ContentInfo(length: 1_000_000, entityTag: "\"v1\"")
    private let v2 = ContentInfo(length: 2_000_000, entityTag: "\"v2\"")

    private enum Change {
        /// A response shows another version.
        case newVersion
        /// The origin said the resource changed without saying what it is now (or `spool rm` on it in use).
        case dropped
    }

    private func changed(_ change: Change) -> EngineState {
        var state = EngineState(policy: FetchPolicy(), info: v1, stored: ByteRangeSet([0..<500_000]))
        XCTAssertNil(state.resetStep(slicesOut: false), "nothing owed before a change")
        switch change {
        case .newVersion: _ = state.absorb(v2, servedFrom: 0, requested: 0, fetch: 0)
        case .dropped: state.dropVersion()
        }
        return state
    }

    func testTheStepsAfterEachChange() {
        let rows: [(name: String, change: Change, slicesOut: [Bool], steps: [EngineState.ResetStep?])] = [
            ("a new version, no slice out", .newVersion, [false, false], [.clearRecord(v2), .emptyFile]),
            (
                "a new version with an old slice out: the file waits for it", .newVersion, [true, true, false],
                [.clearRecord(v2), .waitForSlices, .emptyFile]
            ),
            ("dropped: both files go", .dropped, [false], [.removeFiles]),
        ]
        for row in rows {
            var state = changed(row.change)
            XCTAssertTrue(state.isResetting, row.name)
            for (index, slicesOut) in row.slicesOut.enumerated() {
                let step = state.resetStep(slicesOut: slicesOut)
                XCTAssertEqual(step, row.steps[index], "\(row.name), step \(index + 1)")
                if let step { state.resetStepDone(step, versionNumber: state.versionNumber) }
            }
            XCTAssertNil(state.resetStep(slicesOut: false), "\(row.name): nothing owed after the last step")
            XCTAssertFalse(state.isResetting, row.name)
        }
    }

    func testAVersionThatComesMeanwhileStartsTheWorkOver() {
        var state = changed(.newVersion)
        let during = state.versionNumber
        XCTAssertEqual(state.resetStep(slicesOut: false), .clearRecord(v2))
        // While the record was saved, yet another version came: the step done is of no use any more.
        let v3 = ContentInfo(length: 3_000_000, entityTag: "\"v3\"")
        _ = state.absorb(v3, servedFrom: 0, requested: 0, fetch: 0)
        state.resetStepDone(.clearRecord(v2), versionNumber: during)
        XCTAssertEqual(state.resetStep(slicesOut: false), .clearRecord(v3), "the record of the newest version")
        state.resetStepDone(.clearRecord(v3), versionNumber: state.versionNumber)
        XCTAssertEqual(state.resetStep(slicesOut: false), .emptyFile)
    }

    func testTheSameVersionOwesNothing() {
        var state = EngineState(policy: FetchPolicy(), info: v1, stored: ByteRangeSet([0..<500_000]))
        _ = state.absorb(v1, servedFrom: 0, requested: 0, fetch: 0)
        XCTAssertFalse(state.isResetting)
    }
}
