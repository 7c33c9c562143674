import Foundation
import SpoolTesting

/// The work of `spool bench run`: sets up the rig, runs the scenarios in turn and collects their rows.
struct BenchRunner {
    let plan: BenchPlan
    /// The scenarios to run; all by default.
    var scenarios: Set<BenchScenario> = Set(BenchScenario.allCases)

    func run() async throws -> BenchReport {
        let started = Date()
        let clock = DispatchTime.now().uptimeNanoseconds
        let tools = try BenchTools.find()
        let rig = try BenchRig(plan: plan, tools: tools, progress: Self.progress)
        var report = BenchReport(
            plan: plan, build: Self.build, cores: ProcessInfo.processInfo.activeProcessorCount, started: started)
        report.conditions = conditions(rig)

        if scenarios.contains(.cold) { report.rows += try ColdScenario(rig: rig).run(progress: Self.progress) }
        if scenarios.contains(.loaded) {
            report.rows += try LoadedColdScenario(rig: rig).run(progress: Self.progress)
        }
        let warm = try SpoolServer()
        defer { warm.stop() }
        let warmScenario = WarmScenario(rig: rig, server: warm)
        // Concurrency and video read the file the warm scenario primes.
        if !scenarios.isDisjoint(with: [.warm, .concurrency, .video]) { try warmScenario.prime() }
        if scenarios.contains(.warm) { report.rows += try warmScenario.run(progress: Self.progress) }
        if scenarios.contains(.engine) {
            report.rows.append(try await EngineReadScenario(rig: rig).run(progress: Self.progress))
        }
        if scenarios.contains(.traffic) {
            report.rows += try OriginTrafficScenario(rig: rig).run(progress: Self.progress)
        }
        if scenarios.contains(.memory) { report.rows += try MemoryScenario(rig: rig).run(progress: Self.progress) }
        // Before wrk: the browser's page reports through the origin's access log, read while Chromium plays.
        if scenarios.contains(.browser) {
            if let browser = HeadlessBrowser.find() {
                report.rows += try BrowserScenario(rig: rig, browser: browser).run(progress: Self.progress)
            } else {
                report.conditions.append("Chromium not found: scenario 10 skipped (apt-get install chromium)")
            }
        }
        // wrk last but one: it fills the origin's access log with lines every later originBytes() would parse.
        if scenarios.contains(.concurrency) {
            report.rows += try ConcurrencyScenario(rig: rig, server: warm).run(progress: Self.progress)
        }
        if scenarios.contains(.video) {
            report.rows.append(try VideoScenario(rig: rig, server: warm).run(progress: Self.progress))
        }
        // The order, whatever order they ran in.
        report.rows.sort { $0.id.compare($1.id, options: .numeric) == .orderedAscending }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9
        return report
    }

    /// `spool bench run --link`: the link scenarios, one report per profile, on a rig whose loopback files are
    /// small (the loopback scenarios do not run).
    func runLinks(
        _ profiles: [LinkProfile], plan linkPlan: LinkBenchPlan, origin: BenchOrigin = BenchOrigin(),
        spoolArguments: [String] = []
    ) async throws -> [BenchReport] {
        let tools = try BenchTools.find()
        let rig = try BenchRig(
            plan: .tiny, tools: tools, linkFileBytes: linkPlan.fileBytes, originKind: origin, behindLink: true,
            progress: Self.progress)
        var reports: [BenchReport] = []
        for profile in profiles {
            let started = Date()
            let clock = DispatchTime.now().uptimeNanoseconds
            var report = BenchReport(
                plan: plan, build: Self.build, cores: ProcessInfo.processInfo.activeProcessorCount, started: started)
            let mode = plan.mode == "full" ? "" : " --\(plan.mode)"
            let cores = ProcessInfo.processInfo.activeProcessorCount
            let originArguments =
                origin.kind == .http
                ? "" : " --origin \(origin.kind.rawValue)" + (origin.tlsVersion == .tls13 ? "" : " --tls 1.2")
            let command = "spool bench run --link \(profile.name)\(mode)\(originArguments)"
            var conditions: [String] = [
                "\(command): \(Self.build) build, \(cores) cores, \(linkPlan.runs) run(s) per figure, medians shown",
                "link: \(profile) (SpoolTesting's LinkEmulator, a loopback relay: round trip, "
                    + "one shared bandwidth cap, a window)",
                "origin: nginx on 127.0.0.1 behind the link, \(origin); direct: a player's HTTP client "
                    + "(AsyncHTTPClient: keep-alive, HTTP/2 when offered, a hang-up closes an HTTP/1.1 connection) "
                    + "reading the origin across the link, ffmpeg for frames; Spool: `spool serve` whose origin is "
                    + "across the link, read on loopback; nginx slice proxy: proxy_cache + slice 1m across the link",
                "every run starts a new link and empty caches; a distinct query string per measurement is a new entry "
                    + "in both proxies",
                "Spool ÷ ref: Spool's median over the reference's; 'better' says which direction is good",
                "origin requests, connections: what the row's measurement sent the origin, from its access log "
                    + "(connections: distinct `$connection`s), medians for Spool / direct / the nginx slice proxy",
            ]
            if !spoolArguments.isEmpty { conditions.append("spool serve " + spoolArguments.joined(separator: " ")) }
            if Self.build == "debug" { conditions.append("DEBUG BUILD: figures say little; build with -c release") }
            report.conditions = conditions
            report.rows = try LinkScenario(rig: rig, plan: linkPlan, profile: profile, spoolArguments: spoolArguments)
                .run(progress: Self.progress)
            report.seconds = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9
            reports.append(report)
        }
        return reports
    }

    /// What the reader of the table must know to read it right.
    private func conditions(_ rig: BenchRig) -> [String] {
        let sizes = [BenchRig.File.throughput, .session, .memory].map {
            "\($0.rawValue) \(ByteCountText.format(rig.size($0)))"
        }
        return [
            "spool bench run" + (plan.mode == "full" ? "" : " --\(plan.mode)") + ": \(Self.build) build, "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(plan.runs) run(s) per figure "
                + "(memory: \(plan.memoryRuns)), medians shown",
            "files: " + sizes.joined(separator: ", ") + "; all on 127.0.0.1, origin files in the page cache",
            "nginx direct: nginx (1 worker, sendfile) serving the files: the reference and the proxies' origin",
            "nginx slice proxy: nginx proxy_cache + slice 1m in front of nginx direct, started empty when marked cold",
            "Spool: `spool serve` as its own process with its own cache directory, origin nginx direct",
            "throughput: one raw-socket client reading into a 1 MiB buffer (curl -o /dev/null tops out lower "
                + "and would hide differences); first byte: curl's time_starttransfer, connection set-up included",
            "Spool ÷ ref: Spool's median over the reference's; 'better' says which direction is good",
        ] + (Self.build == "debug" ? ["DEBUG BUILD: figures say little; build with -c release"] : [])
    }

    static var build: String {
        #if DEBUG
        return "debug"
        #else
        return "release"
        #endif
    }

    private static let launched = DispatchTime.now().uptimeNanoseconds

    /// One line on standard error per step, with the seconds since start, so a slow step shows itself.
    @Sendable static func progress(_ text: String) {
        let start = launched  // initialized on first use: read it before the clock
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        FileHandle.standardError.write(Data(String(format: "bench %6.1f s: %@\n", seconds, text).utf8))
    }
}
