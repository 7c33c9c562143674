#if os(Linux)
import AVFoundationStandIn
import XCTest

/// Every recorded AVPlayer trace replays cleanly against a correct delegate.
final class TraceTests: XCTestCase {
    func testRecordedTracesShipWithThePackage() throws {
        XCTAssertEqual(try AVPlayerTrace.recorded().count, 9)
    }

    func testEveryTraceReplaysCleanly() async throws {
        let traces = try AVPlayerTrace.recorded()
        XCTAssertGreaterThanOrEqual(traces.count, 9)
        for trace in traces {
            let playback = Playback(length: trace.resourceLength, name: trace.id)
            let report = await playback.run(trace.script, timeout: 15)
            XCTAssertEqual(report.failures, [], trace.id)
            XCTAssertEqual(report.requests, trace.requests.count, trace.id)
            XCTAssertGreaterThan(report.bytesPlayed, 0, trace.id)
        }
    }

    func testTraceFieldsAndDefaults() throws {
        let traces = try AVPlayerTrace.recorded()
        let unknownSize = try XCTUnwrap(traces.first { $0.id == "dvassetloaderdelegate-issue11-ios13" })
        XCTAssertNil(unknownSize.fileSize)
        XCTAssertEqual(unknownSize.resourceLength, 8 * 1024 * 1024)
        let bbb = try XCTUnwrap(traces.first { $0.id == "local-cache-player-bbb-run-A" })
        XCTAssertEqual(bbb.resourceLength, 158_008_374)
        XCTAssertEqual(bbb.script.requests[3], ScriptedRequest(offset: 13194, length: 52342))
        XCTAssertEqual(bbb.script.requests[1].cancelAfter, 13194)
        XCTAssertEqual(bbb.script.toEndReadLimit, 4 * 1024 * 1024)
    }

    func testBadLineIsNamedAndBlankLinesAreSkipped() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("traces-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let good =
            #"{"id":"a","source":"s","platform":"p","container":"mp3","file_size":null,"requests":[],"notes":""}"#
        try "\(good)\n\n   \n\(good)\n".write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(try AVPlayerTrace.load(contentsOf: url).count, 2)

        try "\(good)\n\n{\"id\": 3}\n".write(to: url, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try AVPlayerTrace.load(contentsOf: url)) { error in
            guard case AVPlayerTraceError.invalidLine(_, let line, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 3)
            XCTAssertTrue("\(error)".contains(":3:"), "\(error)")
        }
    }
}
#endif
