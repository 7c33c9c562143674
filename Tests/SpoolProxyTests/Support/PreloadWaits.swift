import Foundation
import Spool
import SpoolTesting
import XCTest

extension XCTestCase {
    /// Waits, without polling, until each of `ids` is in a state `matches` accepts: it looks again at every change
    /// the preloader reports on `changes` (subscribed before the changes could happen), within a hang bound.
    func waitUntil(
        _ preloader: SpoolPreloader, _ ids: [String], are matches: @escaping @Sendable (PreloadState) -> Bool,
        changes: AsyncStream<PreloadEvent>, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let reached = try await withinHangBound {
            var iterator = changes.makeAsyncIterator()
            while !ids.allSatisfy({ preloader.state(of: $0).map(matches) == true }) {
                guard await iterator.next() != nil else { return false }
            }
            return true
        }
        XCTAssertEqual(
            reached, true, "states: \(ids.map { "\($0): \(String(describing: preloader.state(of: $0)))" })",
            file: file, line: line)
    }
}

/// Whether a preload's state is `.loading` with bytes stored past what planning read (a file's first 16 KiB,
/// which the download's first progress report already counts): its download is under way.
let preloadHasBytes: @Sendable (PreloadState) -> Bool = {
    if case .loading(let bytes, _) = $0 { bytes > 16 * 1024 } else { false }
}
