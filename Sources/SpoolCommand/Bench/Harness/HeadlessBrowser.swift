import Foundation
import SpoolTesting

/// Chromium without a window, as a browser client of the proxy: each page is opened in a new process with an
/// empty profile, so nothing comes from the browser's own cache or an earlier connection.
struct HeadlessBrowser: Sendable {
    let executable: URL

    /// Chromium on the `PATH`, or `nil` (Debian: `apt-get install chromium`).
    static func find() -> HeadlessBrowser? {
        ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap { ExternalCommand(named: $0) }.first
            .map { HeadlessBrowser(executable: $0.executable) }
    }

    /// Opens `page` and returns what `reported` finds once it finds something (the page reports through a
    /// request the caller can see), polling every 20 ms for at most `timeout` seconds; then ends the browser.
    func open<Report>(_ page: URL, timeout: TimeInterval, until reported: () throws -> Report?) throws -> Report {
        let profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-chromium-\(UUID().uuidString)", isDirectory: true)
        defer { Self.remove(profile) }
        // No sandbox: the benchmark may run as root, which Chromium's sandbox refuses. Media plays without a
        // user's gesture, as a feed's muted autoplay does.
        let browser = try BackgroundProcess(
            executable: executable,
            arguments: [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--mute-audio",
                "--autoplay-policy=no-user-gesture-required", "--user-data-dir=\(profile.path)", page.absoluteString,
            ])
        defer {
            // A polite end first: the browser takes its renderer and GPU processes with it.
            browser.send(SIGTERM)
            _ = browser.waitForExit(timeout: 5)
            browser.stop()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let report = try reported() { return report }
            guard browser.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw CommandFailure(
            message: "Chromium reported nothing for \(page.absoluteString) within \(timeout) s: "
                + String(browser.stderr.suffix(500)))
    }

    /// Removes a profile directory. The browser's utility processes outlive it by a moment and may write there
    /// again after a first removal (one profile in about fifteen was left behind): removed until it stays gone
    /// for 100 ms, for at most 2 s.
    private static func remove(_ profile: URL) {
        var goneSince: Date?
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: profile.path) {
                try? FileManager.default.removeItem(at: profile)
                goneSince = nil
            } else if let since = goneSince, Date().timeIntervalSince(since) >= 0.1 {
                return
            } else if goneSince == nil {
                goneSince = Date()
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
