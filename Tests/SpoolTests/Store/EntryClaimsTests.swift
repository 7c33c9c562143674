import Foundation
import XCTest

@testable import Spool

/// Joining two processes' claims on one entry never vouches for bytes that no checksum covers.
final class EntryClaimsTests: XCTestCase {
    private let block = BlockLayout.blockSize
    private let length = BlockLayout.blockSize * 4

    private func claims(_ ranges: [Range<Int64>], edges: EdgeSums = [:]) -> EntryClaims {
        EntryClaims(ranges: ByteRangeSet(ranges), edges: edges)
    }

    func testBlocksOnlyTheOtherSideHasAreTakenWithTheirChecksums() {
        let mine = claims([0..<block], edges: [:])
        let theirs = claims([(2 * block)..<(2 * block + 100)], edges: [2: Data([7])])
        let merged = mine.merged(with: theirs, length: length)
        XCTAssertEqual(merged.ranges.ranges, [0..<block, (2 * block)..<(2 * block + 100)])
        XCTAssertEqual(merged.edges[2], Data([7]))
    }

    func testACompleteBlockWinsOverAPartialOneAndNeedsNoEdgeChecksum() {
        let mine = claims([0..<100], edges: [0: Data([1])])
        let theirs = claims([0..<block])
        let merged = mine.merged(with: theirs, length: length)
        XCTAssertEqual(merged.ranges.ranges, [0..<block])
        XCTAssertNil(merged.edges[0])
    }

    func testALargerPartialViewWinsWithItsChecksum() {
        let mine = claims([0..<100], edges: [0: Data([1])])
        let theirs = claims([0..<500], edges: [0: Data([2])])
        XCTAssertEqual(mine.merged(with: theirs, length: length), claims([0..<500], edges: [0: Data([2])]))
        // And the other way round, ours stays.
        XCTAssertEqual(theirs.merged(with: mine, length: length), theirs)
    }

    func testDisjointPartsOfOnePartialBlockKeepOursOnly() {
        let mine = claims([0..<100], edges: [0: Data([1])])
        let theirs = claims([200..<300], edges: [0: Data([2])])
        let merged = mine.merged(with: theirs, length: length)
        XCTAssertEqual(merged, mine, "no checksum covers 0..<100 and 200..<300 together")
    }

    func testTheShortLastBlockCountsAsComplete() {
        let shortLength = block + 10
        let mine = claims([block..<(block + 5)], edges: [1: Data([1])])
        let theirs = claims([block..<shortLength])
        let merged = mine.merged(with: theirs, length: shortLength)
        XCTAssertEqual(merged.ranges.ranges, [block..<shortLength])
        XCTAssertNil(merged.edges[1])
    }
}
