import Foundation
import XCTest

@testable import Spool

/// What `EngineState` takes in from another process's index record (`otherRecordRead`): bytes of its own
/// version it lacks, never bytes found damaged here, nothing while a version change runs. Table-driven, no I/O.
final class OtherRecordStateTests: XCTestCase {
    private let v1 = ContentInfo(length: 40 * BlockLayout.blockSize, entityTag: "\"v1\"")
    private let v2 = ContentInfo(length: 40 * BlockLayout.blockSize, entityTag: "\"v2\"")
    private let block = BlockLayout.blockSize

    private func blocks(_ range: Range<Int64>) -> Range<Int64> {
        range.lowerBound * block..<range.upperBound * block
    }

    func testEachRecordAndWhatIsTakenIn() {
        struct Row {
            var name: String
            var info: ContentInfo?
            var stored: Range<Int64>
            var theirs: Range<Int64>
            var theirInfo: ContentInfo
            var distrusted: Range<Int64>? = nil
            var resetting = false
            var expectedAdded: Range<Int64>?
            var expectedLater = false
        }
        let rows = [
            Row(
                name: "their bytes past ours are taken in", info: v1, stored: 0..<10, theirs: 0..<20, theirInfo: v1,
                expectedAdded: 10..<20),
            Row(
                name: "what we hold already: nothing new", info: v1, stored: 0..<20, theirs: 5..<15, theirInfo: v1,
                expectedAdded: nil),
            Row(
                name: "another version: nothing new", info: v1, stored: 0..<10, theirs: 0..<20, theirInfo: v2,
                expectedAdded: nil),
            Row(
                name: "bytes found damaged here stay out", info: v1, stored: 0..<10, theirs: 0..<20, theirInfo: v1,
                distrusted: 10..<15, expectedAdded: 15..<20),
            Row(
                name: "unknown content information: later", info: nil, stored: 0..<0, theirs: 0..<20, theirInfo: v1,
                expectedLater: true),
            Row(
                name: "a version change under way: later", info: v1, stored: 0..<10, theirs: 0..<20, theirInfo: v2,
                resetting: true, expectedLater: true),
        ]
        for row in rows {
            var state = EngineState(
                policy: FetchPolicy(), info: row.info,
                stored: ByteRangeSet(row.stored.isEmpty ? [] : [blocks(row.stored)]))
            if row.resetting { _ = state.absorb(v2, servedFrom: 0, requested: 0, fetch: 0) }
            if let distrusted = row.distrusted { state.forget([blocks(distrusted)]) }
            let ours = Set(row.stored)
            state.checks.read(checked: ours)
            let (before, invalidations) = (state.stored, state.checks.planInvalidations)
            let verdict = state.otherRecordRead(
                EntryClaims(ranges: ByteRangeSet([blocks(row.theirs)]), edges: [:]), of: row.theirInfo)
            switch (verdict, row.expectedAdded) {
            case (.later, _):
                XCTAssertTrue(row.expectedLater, "\(row.name): later")
                XCTAssertEqual(state.stored, before, "\(row.name): nothing taken in")
            case (.nothingNew, nil):
                XCTAssertFalse(row.expectedLater, row.name)
                XCTAssertEqual(state.stored, before, "\(row.name): nothing taken in")
            case (.adopted, let expected?):
                var added = state.stored
                for range in before.ranges { added.remove(range) }
                XCTAssertEqual(added, ByteRangeSet([blocks(expected)]), row.name)
                XCTAssertTrue(state.stored.contains(blocks(row.stored)), "\(row.name): ours kept")
                XCTAssertTrue(state.checks.trusted.isDisjoint(with: expected), "\(row.name): their blocks unchecked")
                XCTAssertTrue(state.checks.trusted.isSuperset(of: ours), "\(row.name): ours still checked")
                XCTAssertNotEqual(state.checks.planInvalidations, invalidations, "\(row.name): plans made stale")
            default:
                XCTFail("\(row.name): \(verdict)")
            }
        }
    }

    /// A version change is one event: the stored bytes, the blocks' checks, the damage found and the discards
    /// owed all start afresh with it, and every plan made before is stale.
    func testANewVersionStartsTheChecksAfresh() {
        var state = EngineState(policy: FetchPolicy(), info: v1, stored: ByteRangeSet([blocks(0..<10)]))
        state.checks.read(checked: Set(0..<10))
        state.forget([blocks(3..<4)])
        XCTAssertEqual(state.checks.discards, [blocks(3..<4)])
        XCTAssertFalse(state.checks.trusted.contains(3), "a forgotten block is unchecked")
        let invalidations = state.checks.planInvalidations
        XCTAssertTrue(state.absorb(v2, servedFrom: 0, requested: 0, fetch: 0))
        XCTAssertTrue(state.stored.isEmpty)
        XCTAssertTrue(state.checks.trusted.isEmpty)
        XCTAssertTrue(state.checks.discards.isEmpty, "the file is emptied whole: no slot is owed")
        XCTAssertTrue(state.checks.distrusted.isEmpty, "damage of the old version says nothing of the new")
        XCTAssertNotEqual(state.checks.planInvalidations, invalidations)
        XCTAssertTrue(state.isResetting)
    }
}
