#if os(Linux)
import AVFoundationStandIn
import XCTest

/// Each deliberately broken delegate is caught, with a failure that says what went wrong.
final class BrokenDelegateTests: XCTestCase {
    private let length: Int64 = 1024 * 1024

    private func failures(
        _ fault: MemoryDelegate.Fault, script: PlayerScript? = nil,
        timeout: TimeInterval = 10
    ) async -> [String] {
        let playback = Playback(length: length, fault: fault)
        return await playback.run(script ?? .linearPlay(length: length), timeout: timeout).failures
    }

    private func assertCaught(
        _ failures: [String], _ phrase: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertTrue(
            failures.contains { $0.contains(phrase) }, "expected \"\(phrase)\" in \(failures)", file: file, line: line)
    }

    func testMimeTypeInsteadOfUTI() async {
        assertCaught(await failures(.mimeType), "is a MIME type")
    }

    func testFinishingTwice() async {
        assertCaught(await failures(.finishTwice), "finishLoading called a second time")
    }

    func testRespondingAfterCancel() async {
        let script = PlayerScript(requests: [
            ScriptedRequest(info: true, data: false, offset: 0, length: 2),
            ScriptedRequest(offset: 0, length: nil, cancelAfter: 60 * 1024),
        ])
        let found = await failures(.respondAfterCancel, script: script)
        assertCaught(found, "respond(with:) called after the request was cancelled")
        assertCaught(found, "finishLoading called after the request was cancelled")
    }

    func testWrongByte() async {
        let found = await failures(.wrongByte(at: 100_000))
        assertCaught(found, "wrong bytes, first difference at offset 100000")
    }

    func testNeverFinishing() async {
        let found = await failures(.neverFinish, timeout: 0.5)
        assertCaught(found, "accepted but never finished")
        assertCaught(found, "timed out")
    }

    func testFinishingAToEndRequestEarly() async {
        assertCaught(await failures(.finishToEndEarly), "finished early")
    }

    func testRespondingOffTheDelegateQueue() async {
        assertCaught(await failures(.respondOffQueue), "respond(with:) called off the delegate queue")
    }

    func testAMemberTheModelledSystemLacksIsTheCrashItWouldBe() async {
        let onIOS15 = await Playback(length: length, fault: .entireLengthUnconditionally, system: .iOS15)
            .run(.linearPlay(length: length))
        assertCaught(onIOS15.failures, "setEntireLengthAvailableOnDemand:]: unrecognized selector")
        assertCaught(onIOS15.failures, "iOS 15 lacks it")
        let onMacOS12 = await Playback(length: length, fault: .entireLengthUnconditionally, system: .macOS12)
            .run(.linearPlay(length: length))
        assertCaught(onMacOS12.failures, "macOS 12 lacks it")
        let onIOS16 = await Playback(length: length, fault: .entireLengthUnconditionally, system: .iOS16)
            .run(.linearPlay(length: length))
        XCTAssertTrue(onIOS16.passed, "iOS 16 has the member: \(onIOS16.failures)")
        XCTAssertEqual(onIOS16.entireLengthAvailableOnDemand, true)
    }

    func testWrongContentLengthAndBoundedOverrun() async {
        // A delegate told a different length claims the wrong size and overruns the bounded request.
        let asset = AVURLAsset(url: URL(string: "spool-test://example.com/a.mp4")!)
        let delegate = MemoryDelegate(length: length + 10)
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        let simulator = PlayerSimulator(asset: asset, expectedBytes: TestResource.bytes, resourceLength: length)
        let script = PlayerScript(requests: [
            ScriptedRequest(info: true, data: false, offset: 0, length: 2),
            ScriptedRequest(offset: length - 100, length: nil),
        ])
        let found = await simulator.run(script, timeout: 10).failures
        assertCaught(found, "contentLength \(length + 10)")
        assertCaught(found, "beyond the requested end \(length)")
    }

    func testReleasedDelegateAndMissingDelegate() async {
        let asset = AVURLAsset(url: URL(string: "spool-test://example.com/a.mp4")!)
        let simulator = PlayerSimulator(asset: asset, expectedBytes: TestResource.bytes, resourceLength: length)
        assertCaught(await simulator.run(.linearPlay(length: length)).failures, "no delegate")
        do {
            let delegate = MemoryDelegate(length: length)
            asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        }
        XCTAssertNil(asset.resourceLoader.delegate, "the loader holds its delegate weakly")
    }
}
#endif
