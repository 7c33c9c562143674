import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// The offsets `MP4Layout` and `MP3Layout` find for second N, against where ffprobe says the packets of
/// files ffmpeg wrote lie.
final class MediaLayoutTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-layout-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testMP4WithMovieFirstNeedsItsStartUpToTheLastSampleOfTheSeconds() async throws {
        let file = try MediaSamples.mp4(in: directory, name: "front.mp4", seconds: 8, faststart: true)
        for seconds in [0.5, 2.0, 5.0] {
            let ranges = try await mp4Ranges(file, seconds: seconds)
            let expected = try MediaSamples.mediaEnd(of: file, seconds: seconds)
            XCTAssertEqual(ranges, [0..<expected], "\(seconds) s")
        }
    }

    func testMP4WithMovieAtTheEndNeedsItsTailToo() async throws {
        let file = try MediaSamples.mp4(in: directory, name: "end.mp4", seconds: 8, faststart: false)
        let length = try Int64(Data(contentsOf: file).count)
        let movieStart = try XCTUnwrap(MediaSamples.topLevelBoxes(of: file).first { $0.type == "moov" }).offset
        let ranges = try await mp4Ranges(file, seconds: 3)
        let expected = try MediaSamples.mediaEnd(of: file, seconds: 3)
        XCTAssertEqual(ranges, [0..<expected, movieStart..<length])
        XCTAssertLessThan(expected, movieStart)
    }

    func testFragmentedAndDamagedMP4sAreNotUnderstood() async throws {
        let fragmented = try MediaSamples.mp4(
            in: directory, name: "frag.mp4", seconds: 4, faststart: false,
            extra: ["-movflags", "frag_keyframe+empty_moov"])
        let fragmentedRanges = try await mp4Ranges(fragmented, seconds: 2)
        XCTAssertNil(fragmentedRanges)
        var damaged = try Data(
            contentsOf: try MediaSamples.mp4(in: directory, name: "bad.mp4", seconds: 2, faststart: true))
        // The second box's size now runs past the end of the file.
        let second = try MediaSamples.topLevelBoxes(of: directory.appendingPathComponent("bad.mp4"))[1].offset
        damaged.replaceSubrange(Int(second)..<Int(second) + 4, with: [0x7F, 0xFF, 0xFF, 0xFF])
        let damagedRanges = try await MP4Layout.ranges(forSeconds: 1, length: Int64(damaged.count)) { range in
            damaged.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
        }
        XCTAssertNil(damagedRanges)
    }

    func testMP3OffsetsMatchTheFrameThatPlaysThatSecond() async throws {
        // Constant rate without a header (bit rate arithmetic), with an Info header, and variable rate with a
        // Xing table of contents; each behind an ID3v2 tag.
        let variants: [(String, [String])] = [
            ("cbr.mp3", ["-b:a", "128k", "-write_xing", "0"]),
            ("info.mp3", ["-b:a", "128k"]),
            ("vbr.mp3", ["-q:a", "2"]),
        ]
        for (name, arguments) in variants {
            let file = try MediaSamples.mp3(in: directory, name: name, seconds: 30, arguments: arguments)
            let data = try Data(contentsOf: file)
            let tag = MP3Layout.tagLength(data)
            XCTAssertGreaterThan(tag, 0, "\(name): ffmpeg writes an ID3v2 tag")
            let frame = try XCTUnwrap(MP3Layout.firstFrame(in: data.subdata(in: Int(tag)..<data.count), at: tag), name)
            let packets = try MediaSamples.packets(of: file).filter { $0.stream == 0 }
            for seconds in [1.0, 10.0, 25.0] {
                let offset = frame.offset + MP3Layout.offset(ofSecond: seconds, in: frame, length: Int64(data.count))
                let playing = try XCTUnwrap(packets.first { $0.time >= seconds }, "\(name) at \(seconds) s")
                // Past the frame that plays that second, by at most a percent of the file (a table of contents
                // has 100 entries) and a few frames.
                XCTAssertGreaterThanOrEqual(offset, playing.position + playing.size, "\(name) at \(seconds) s")
                XCTAssertLessThanOrEqual(
                    offset, playing.position + Int64(data.count) / 100 + Int64(4 * frame.frameLength),
                    "\(name) at \(seconds) s")
            }
        }
    }

    private func mp4Ranges(_ file: URL, seconds: Double) async throws -> [Range<Int64>]? {
        let data = try Data(contentsOf: file)
        return try await MP4Layout.ranges(forSeconds: seconds, length: Int64(data.count)) { range in
            data.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
        }
    }
}
