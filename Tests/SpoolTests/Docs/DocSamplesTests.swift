import Foundation
import XCTest

/// Every Swift sample of the README and the DocC articles is compiled code, line for line: each ```swift block
/// is the text between `// sample begins` and `// sample ends` in a source of `SpoolSamples` (built on every
/// build) or `SpoolQuickStart` (compiled for iOS 15 and macOS 12 against Apple's SDKs in CI). So what a reader
/// copies is what CI compiles, and a sample no document shows any more is not kept.
final class DocSamplesTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEverySwiftBlockOfTheDocumentsIsACompiledSample() throws {
        let samples = try compiledSamples()
        let documents = try documentBlocks()
        XCTAssertGreaterThanOrEqual(documents.count, 10, "the README and the articles show their samples")
        for (document, block) in documents {
            XCTAssertTrue(
                samples.contains { $0.text == block },
                "\(document): this Swift block is no compiled sample as written:\n\(block)")
        }
        for sample in samples {
            XCTAssertTrue(
                documents.contains { $0.block == sample.text },
                "\(sample.file): a sample no document shows as written:\n\(sample.text)")
        }
    }

    func testTheReadmeStartsWithTheAVPlayerQuickStartWithItsImports() throws {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- the AVPlayer quick start: Sources/SpoolQuickStart/TrackPlayer.swift -->"
        let afterMarker = try XCTUnwrap(readme.range(of: marker), "the README marks its quick start")
        let block = try XCTUnwrap(Self.swiftBlocks(in: String(readme[afterMarker.upperBound...])).first)
        let trackPlayer = try compiledSamples().filter { $0.file.hasSuffix("SpoolQuickStart/TrackPlayer.swift") }
        XCTAssertEqual(trackPlayer.map(\.text), [block], "README.md's quick start and TrackPlayer.swift differ")
        XCTAssertTrue(block.hasPrefix("import AVFoundation\n"), "the imports are part of the sample")
    }

    /// The samples of the compiled targets, with the file each is in.
    private func compiledSamples() throws -> [(file: String, text: String)] {
        var samples: [(file: String, text: String)] = []
        for target in ["SpoolSamples", "SpoolQuickStart"] {
            let directory = root.appendingPathComponent("Sources/\(target)")
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            where name.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                for sample in Self.sections(of: text, from: "// sample begins", to: "// sample ends") {
                    samples.append(("Sources/\(target)/\(name)", sample))
                }
            }
        }
        XCTAssertFalse(samples.isEmpty, "the sample targets mark their samples")
        return samples
    }

    /// The ```swift blocks of the README and of every DocC article, with the document each is in.
    private func documentBlocks() throws -> [(document: String, block: String)] {
        var documents = ["README.md"]
        let sources = root.appendingPathComponent("Sources")
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let catalogs = try FileManager.default.contentsOfDirectory(
                atPath: sources.appendingPathComponent(target).path
            ).filter { $0.hasSuffix(".docc") }
            for catalog in catalogs {
                let path = "Sources/\(target)/\(catalog)"
                for name in try FileManager.default.contentsOfDirectory(
                    atPath: root.appendingPathComponent(path).path
                ).sorted() where name.hasSuffix(".md") {
                    documents.append("\(path)/\(name)")
                }
            }
        }
        return try documents.flatMap { document in
            let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            return Self.swiftBlocks(in: text).map { (document, $0) }
        }
    }

    private static func swiftBlocks(in text: String) -> [String] {
        sections(of: text, from: "```swift", to: "```")
    }

    /// The text strictly between each `start` line and the next `end` line (lines compared trimmed).
    private static func sections(of text: String, from start: String, to end: String) -> [String] {
        var sections: [String] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == start {
                current = []
            } else if current != nil, trimmed == end {
                sections.append(current!.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return sections
    }
}
