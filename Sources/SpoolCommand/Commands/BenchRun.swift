import ArgumentParser
import Foundation
import SpoolTesting

/// `spool bench run`: Spool side by side with nginx on this machine, in one run.
struct BenchRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Measure the proxy and the engine side by side with nginx (direct and as a slice cache).",
        discussion: """
            Needs nginx (with the slice module), curl, wrk and ffmpeg, and Chromium for scenario 10; on \
            Debian: sudo apt-get install -y nginx curl wrk ffmpeg chromium. Writes generated files to a \
            temporary directory, serves them with nginx on a free loopback port, and measures: (1) warm and \
            (2) cold throughput, (3) time to first byte, (4) engine reads against a pread loop, (5) origin \
            traffic of a player session with seeks and its replay, (6) peak memory of spool serve, (7) wrk with \
            random ranges, (8) ffmpeg reading an MP4 through the proxy, (10) Chromium's cold start of a small \
            MP4. Prints a Markdown table of medians with each ratio to its reference and writes the same as JSON. Use a release build \
            (swift build -c release): a debug build's figures say little. Full mode takes ten minutes or more \
            and about 8 GB of temporary disk; --quick takes under two minutes.
            """)

    @Flag(help: "Smaller files, fewer runs, shorter loads: under two minutes on two cores.")
    var quick = false

    @Flag(help: .hidden)
    var tiny = false

    @Option(help: ArgumentHelp("Where to write the JSON results.", valueName: "file"))
    var json = "spool-bench.json"

    @Option(
        help: ArgumentHelp(
            "Runs of every scenario (default: 5, with --quick 3; memory: 3, with --quick 1).", valueName: "n"))
    var runs: Int?

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp("Run only these scenarios.", valueName: "scenario"))
    var only: [BenchScenario] = []

    @Option(
        help: ArgumentHelp(
            "Instead of the loopback scenarios, measure across an emulated link: "
                + "\(LinkProfile.all.map(\.name).joined(separator: ", ")) or all.",
            valueName: "profile"))
    var link: String?

    @Option(
        help: ArgumentHelp(
            "With --link: start spool serve with this --bandwidth-delay-multiple (the read-ahead knob).", valueName: "n"
        ))
    var bandwidthDelayMultiple: Double?

    @Option(
        help: ArgumentHelp(
            "With --link: start spool serve with this --abandoned-request-grace (0 cancels at once).",
            valueName: "seconds"))
    var abandonedRequestGrace: Double?

    @Option(
        help: ArgumentHelp(
            "With --link: the origin speaks plain HTTP/1.1 (http), HTTPS with HTTP/1.1 (https), or HTTPS offering "
                + "HTTP/2 (h2), with a certificate from the benchmark's own authority.",
            valueName: "protocol"))
    var origin: BenchOrigin.Kind = .http

    @Option(help: ArgumentHelp("With --origin https or h2: the TLS version the origin accepts.", valueName: "version"))
    var tls: BenchOrigin.TLSVersion = .tls13

    private var linkProfiles: [LinkProfile]? {
        get throws {
            guard let link else { return nil }
            if link == "all" { return LinkProfile.all }
            guard let profile = LinkProfile.named(link) else {
                throw ValidationError(
                    "unknown link profile '\(link)'; known: \(LinkProfile.all.map(\.name).joined(separator: ", ")), all"
                )
            }
            return [profile]
        }
    }

    func validate() throws {
        _ = try linkProfiles
        if let runs, runs < 1 { throw ValidationError("--runs must be at least 1") }
        if quick && tiny { throw ValidationError("--quick and --tiny exclude each other") }
        // Options that only one kind of run reads are refused with the other rather than silently ignored.
        if link != nil, !only.isEmpty {
            throw ValidationError("--only picks loopback scenarios; with --link every link measurement runs")
        }
        if link == nil, bandwidthDelayMultiple != nil || abandonedRequestGrace != nil || origin != .http {
            throw ValidationError("--bandwidth-delay-multiple, --abandoned-request-grace and --origin need --link")
        }
        if origin == .http, tls != .tls13 { throw ValidationError("--tls needs --origin https or h2") }
    }

    func run() async throws {
        var plan = tiny ? BenchPlan.tiny : quick ? BenchPlan.quick : BenchPlan.full
        if let runs { (plan.runs, plan.memoryRuns) = (runs, runs) }
        var runner = BenchRunner(plan: plan)
        if !only.isEmpty { runner.scenarios = Set(only) }
        let reports: [BenchReport]
        if let profiles = try linkProfiles {
            var linkPlan = tiny ? LinkBenchPlan.tiny : quick ? LinkBenchPlan.quick : LinkBenchPlan.full
            if let runs { linkPlan.runs = runs }
            reports = try await runner.runLinks(
                profiles, plan: linkPlan, origin: BenchOrigin(kind: origin, tlsVersion: tls),
                spoolArguments: (bandwidthDelayMultiple.map { ["--bandwidth-delay-multiple", "\($0)"] } ?? [])
                    + (abandonedRequestGrace.map { ["--abandoned-request-grace", "\($0)"] } ?? []))
        } else {
            reports = [try await runner.run()]
        }
        let file = URL(fileURLWithPath: json)
        try BenchReport.json(reports).write(to: file, options: .atomic)
        for report in reports { print(report.rendered() + "\n") }
        print("JSON: \(file.path)")
    }
}
