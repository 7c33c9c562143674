import Foundation
import SpoolTesting

/// Scenario 10: a browser's cold start. Chromium plays a small H.264 MP4 through a fresh `spool serve`, from
/// nginx directly and through a fresh nginx slice proxy, each time in a new browser process with an empty
/// profile; the page times setting the source to the `playing` event. Quiet against direct, then with every
/// core busy against the slice proxy; each pair in turns, Spool first in every other run.
struct BrowserScenario {
    let rig: BenchRig
    let browser: HeadlessBrowser

    /// How long one play may take before the measurement fails.
    private static let playTimeout: TimeInterval = 60

    func run(progress: (String) -> Void) throws -> [BenchRow] {
        try rig.prepareBrowserPlay()
        let clip = ByteCountText.format(rig.size(.browserVideo))
        var quiet = BenchRow(
            id: "10a", title: "Chromium: time to playing a \(clip) MP4, cold", unit: .seconds, higherIsBetter: false,
            referenceName: "nginx direct", goal: .ratio(atMost: 1.25))
        var busy = BenchRow(
            id: "10b", title: "the same with every core busy, against the caching reference", unit: .seconds,
            higherIsBetter: false, referenceName: "nginx slice proxy (cold)", goal: .ratio(atMost: 1.0))
        var busyDirect: [Double] = []
        var (quietCost, busyCost) = (OriginCost(), OriginCost())
        for run in 0..<rig.plan.runs {
            progress("Chromium plays an MP4, run \(run + 1) of \(rig.plan.runs) (fresh proxies, empty caches)")
            // Every other run in the other order: the first browser after a pause, or after the load starts,
            // must not always be the same way's.
            let spoolFirst = run.isMultiple(of: 2)
            for way in spoolFirst ? [Way.spool, .direct] : [.direct, .spool] {
                let seconds = try play(way, tag: "quiet-\(run)")
                if way == .spool { quiet.spool.append(seconds) } else { quiet.reference.append(seconds) }
            }
            let load = try CPULoad()
            defer { load.stop() }
            for way in spoolFirst ? [Way.spool, .slice] : [.slice, .spool] {
                let seconds = try play(way, tag: "busy-\(run)")
                if way == .spool { busy.spool.append(seconds) } else { busy.reference.append(seconds) }
            }
            busyDirect.append(try play(.direct, tag: "busy-\(run)"))
            quietCost.spool.append(try originRequests(.spool, tag: "quiet-\(run)"))
            quietCost.reference.append(try originRequests(.direct, tag: "quiet-\(run)"))
            busyCost.spool.append(try originRequests(.spool, tag: "busy-\(run)"))
            busyCost.slice.append(try originRequests(.slice, tag: "busy-\(run)"))
        }
        (quiet.originCost, busy.originCost) = (quietCost, busyCost)
        quiet.notes.append(
            "from setting the video's source to its `playing` event, timed by the page; a new Chromium with an "
                + "empty profile each time, and a new proxy with an empty cache; origin requests and connections: "
                + "the clip's, from the origin's access log")
        if let direct = BenchRow.median(busyDirect) {
            busy.notes.append("nginx direct with every core busy: \(BenchUnit.seconds.format(direct))")
        }
        return [quiet, busy]
    }

    private enum Way: String { case spool, direct, slice }

    /// Seconds Chromium took from the source to `playing` for the clip read through `way`; `tag` is this
    /// measurement's, and makes the clip a new entry in a proxy's cache.
    private func play(_ way: Way, tag: String) throws -> Double {
        let tag = "\(tag)-\(way.rawValue)"
        let clip = rig.originURL(.browserVideo, query: tag)
        var proxies: [() -> Void] = []
        defer { for stop in proxies { stop() } }
        let source: URL
        switch way {
        case .direct:
            source = clip
        case .spool:
            let server = try SpoolServer()
            proxies.append(server.stop)
            source = try server.url(for: clip)
        case .slice:
            let proxy = try NginxSliceProxy(origin: rig.origin.baseURL, executable: rig.tools.nginx)
            proxies.append(proxy.stop)
            source = proxy.url(for: RangeReader.target(of: clip))
        }
        var page = URLComponents(url: rig.originURL(.browserPage), resolvingAgainstBaseURL: false)!
        // Encoded whole: a query item's value keeps `&` and `=` otherwise, which the source's own query may hold.
        let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        page.percentEncodedQuery = [("src", source.absoluteString), ("tag", tag)]
            .map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: unreserved)!)" }.joined(separator: "&")
        let report = try browser.open(page.url!, timeout: Self.playTimeout) { try self.report(tag: tag) }
        guard let milliseconds = Double(report) else {
            throw CommandFailure(message: "Chromium could not play \(source.absoluteString): media \(report)")
        }
        return milliseconds / 1000
    }

    /// What the play `tag` through `way` asked of the origin, once its log is still (every client of it has
    /// stopped by then).
    private func originRequests(_ way: Way, tag: String) throws -> OriginRequestCount {
        _ = try settledCount(quiet: 0.2) { Int64(try rig.origin.accessLog().count) }
        let path = RangeReader.target(of: rig.originURL(.browserVideo, query: "\(tag)-\(way.rawValue)"))
        return OriginRequestCount(try rig.origin.accessLog()) { $0 == path }
    }

    /// The page's report for `tag` in the origin's access log: the milliseconds, or "error=N".
    private func report(tag: String) throws -> String? {
        let suffix = "&tag=" + tag
        guard
            let entry = try rig.origin.accessLog().last(where: {
                $0.path.hasPrefix("/report?") && $0.path.hasSuffix(suffix)
            })
        else { return nil }
        let what = entry.path.dropFirst("/report?".count).dropLast(suffix.count)
        return what.hasPrefix("ms=") ? String(what.dropFirst(3)) : String(what)
    }
}
