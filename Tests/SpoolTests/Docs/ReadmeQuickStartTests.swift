import Foundation
import XCTest

/// The README's AVPlayer quick start is the `SpoolQuickStart` target's source, line for line, so the code a
/// newcomer copies is the code CI compiles for iOS 15 and macOS 12 against Apple's SDKs.
final class ReadmeQuickStartTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheReadmeQuickStartIsTheCompiledTarget() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/SpoolQuickStart/TrackPlayer.swift"), encoding: .utf8)
        let compiled = try XCTUnwrap(
            Self.lines(of: source, from: "// quick-start begins", to: "// quick-start ends"),
            "the target marks its quick start")
        let marker = "<!-- the AVPlayer quick start: Sources/SpoolQuickStart/TrackPlayer.swift -->"
        let afterMarker = try XCTUnwrap(readme.range(of: marker), "the README marks its quick start")
        let block = try XCTUnwrap(
            Self.lines(of: String(readme[afterMarker.upperBound...]), from: "```swift", to: "```"),
            "a swift code block follows the marker")
        XCTAssertEqual(block, compiled, "README.md's quick start and Sources/SpoolQuickStart/TrackPlayer.swift differ")
        XCTAssertTrue(compiled.contains("import AVFoundation"), "the imports are part of the sample")
    }

    /// The lines strictly between the first `start` line and the next `end` line.
    private static func lines(of text: String, from start: String, to end: String) -> [String]? {
        let all = text.components(separatedBy: "\n")
        guard let first = all.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == start }),
            let last = all[(first + 1)...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == end })
        else { return nil }
        return Array(all[(first + 1)..<last])
    }
}
