import Spool
import SpoolTesting
import XCTest

extension AsyncStream where Element == PlaybackReport {
    /// The next report, within the hang bound.
    func nextReport(file: StaticString = #filePath, line: UInt = #line) async throws -> PlaybackReport {
        let report = try await withinHangBound { await self.first { _ in true } }
        return try XCTUnwrap(report ?? nil, "no playback report within the hang bound", file: file, line: line)
    }
}
