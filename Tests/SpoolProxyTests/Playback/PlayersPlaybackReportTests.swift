import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy's playback reports for real players, ffmpeg and Chromium, reading across an emulated link that
/// goes silent for a second once playback has started: the report has the start (cold), the bytes, and the
/// wait on the origin the silence caused.
final class PlayersPlaybackReportTests: XCTestCase {
    /// A 6-second H.264 clip with its index first (what Chromium plays), and a page that plays the URL its
    /// `src` parameter names and reports its `playing` event with a request to `/report`.
    private func prepareClip(in fixture: ProxyFixture) async throws {
        guard let ffmpeg = ExternalCommand(named: "ffmpeg") else { throw XCTSkip("ffmpeg is not installed") }
        let clip = fixture.www.appendingPathComponent("clip.mp4")
        let output = try await offPool {
            try ffmpeg.run([
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "6", "-c:v",
                "libx264", "-pix_fmt", "yuv420p", "-b:v", "800k", "-movflags", "+faststart", clip.path,
            ])
        }
        XCTAssertEqual(output.status, 0, output.stderr)
        let page = """
            <!doctype html><meta charset="utf-8"><video id="v" muted autoplay playsinline></video>
            <script>
            const video = document.getElementById("v");
            video.addEventListener("playing", () => { new Image().src = "/report?playing"; }, { once: true });
            video.addEventListener("error", () => { new Image().src = "/report?error"; });
            video.src = new URLSearchParams(location.search).get("src");
            </script>
            """
        try Data(page.utf8).write(to: fixture.www.appendingPathComponent("page.html"))
    }

    /// A link of 1.6 Mbit/s (twice the clip's rate) to the fixture's nginx.
    private func slowLink(to fixture: ProxyFixture) throws -> LinkEmulator {
        let link = try LinkEmulator(
            upstreamPort: fixture.nginx.port,
            profile: LinkProfile(name: "slow", roundTrip: 0.01, bitsPerSecond: 1_600_000))
        addTeardownBlock { link.stop() }
        return link
    }

    /// Once the player has 100 kB, the link moves nothing for a second.
    private func silenceOnceStarted(_ link: LinkEmulator) async throws {
        for _ in 0..<3000 where link.bytesToClients < 100_000 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertGreaterThanOrEqual(link.bytesToClients, 100_000, "the player never started")
        link.blackout(seconds: 1)
    }

    /// The report of the clip, once the proxy stopped.
    private func clipReport(_ fixture: ProxyFixture, _ reports: AsyncStream<PlaybackReport>) async throws
        -> PlaybackReport
    {
        await fixture.proxy.stop()
        let report = try await reports.nextReport()
        XCTAssertTrue(report.item.hasSuffix("/clip.mp4"), report.item)
        return report
    }

    private func checkWaited(_ report: PlaybackReport, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(report.start, .cold, file: file, line: line)
        XCTAssertNotNil(report.timeToFirstByte, file: file, line: line)
        XCTAssertNotNil(report.timeToStart, file: file, line: line)
        XCTAssertGreaterThan(report.bytesFromOrigin, 100_000, file: file, line: line)
        XCTAssertGreaterThanOrEqual(report.originWaits, 1, "\(report)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(report.originWaitTime, 0.7, "\(report)", file: file, line: line)
    }

    func testFFmpegsReportHasTheWaitTheLinkCaused() async throws {
        let fixture = try await ProxyFixture(test: self)
        try await prepareClip(in: fixture)
        let link = try slowLink(to: fixture)
        let reports = fixture.cache.playback.reports()
        guard let ffmpeg = ExternalCommand(named: "ffmpeg") else { throw XCTSkip("ffmpeg is not installed") }
        let url = try fixture.proxy.url(for: link.url(for: "/clip.mp4"))
        // In real time, as a player plays: the silence comes while it plays.
        let playing = Task {
            try await offPool { try ffmpeg.run(["-v", "error", "-re", "-i", url.absoluteString, "-f", "null", "-"]) }
        }
        try await silenceOnceStarted(link)
        let played = try await playing.value
        XCTAssertEqual(played.status, 0, played.stderr)
        checkWaited(try await clipReport(fixture, reports))
    }

    func testChromiumsReportHasTheWaitTheLinkCaused() async throws {
        guard let chromium = ["chromium", "chromium-browser"].lazy.compactMap({ ExternalCommand(named: $0) }).first
        else { throw XCTSkip("Chromium is not installed; .ci/run installs it") }
        let fixture = try await ProxyFixture(test: self)
        try await prepareClip(in: fixture)
        let link = try slowLink(to: fixture)
        let reports = fixture.cache.playback.reports()
        let source = try fixture.proxy.url(for: link.url(for: "/clip.mp4")).absoluteString
        let encoded = try XCTUnwrap(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let page = fixture.nginx.url(for: "page.html").absoluteString + "?src=" + encoded
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("spool-chromium-\(UUID())")
        // No sandbox: tests may run as root, which Chromium's sandbox refuses.
        let browser = try BackgroundProcess(
            executable: chromium.executable,
            arguments: [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--mute-audio",
                "--autoplay-policy=no-user-gesture-required", "--user-data-dir=\(profile.path)", page,
            ])
        defer {
            browser.send(SIGTERM)
            _ = browser.waitForExit(timeout: 5)
            browser.stop()
            try? FileManager.default.removeItem(at: profile)
        }
        try await silenceOnceStarted(link)
        // The page saw the video play.
        let nginx = fixture.nginx
        let played = try await withinHangBound {
            while !((try? nginx.accessLog())?.contains { $0.path.hasPrefix("/report?") } ?? false) {
                try await Task.sleep(for: .milliseconds(20))
            }
            return try nginx.accessLog().contains { $0.path == "/report?playing" }
        }
        XCTAssertEqual(played, true, browser.stderr.suffix(500).description)
        // The silence over, so the read that waited through it has told the report.
        for _ in 0..<300 where link.isBlackedOut { try await Task.sleep(for: .milliseconds(10)) }
        checkWaited(try await clipReport(fixture, reports))
    }
}
