import ArgumentParser
import Foundation
import Spool
import SpoolDownloads
import SpoolTesting

/// `spool bench downloads`: an album downloaded for offline across emulated links, by Spool's download queue
/// and by curl fetching every item at once, in the same run: time and bytes.
struct BenchDownloads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "downloads",
        abstract: "Download an album across emulated links: Spool's DownloadQueue beside curl, time and bytes.",
        discussion: """
            Writes N generated tracks (default 8 of 4 MB; --quick: 6 of 2 MB), serves them with nginx, and fetches \
            every one across each link, each pass over a new link: curl with every transfer at once \
            (--parallel), a DownloadQueue two at a time into an empty cache (the default an app gets), and one \
            N at a time. Spool's downloads are checked byte for byte after each pass. Needs nginx and curl.
            """)

    @Flag(help: "Fewer, smaller items and one run: a minute or two.")
    var quick = false

    /// Three items of 200 kB over one pass: for the command's own test.
    @Flag(help: .hidden)
    var tiny = false

    @Option(help: ArgumentHelp("Items (tracks) in the album.", valueName: "n"))
    var items: Int?

    @Option(help: ArgumentHelp("Each item's size, e.g. 4MB.", valueName: "size"))
    var size: String?

    @Option(help: ArgumentHelp("Passes of each way per link; figures are their medians.", valueName: "n"))
    var runs: Int?

    @OptionGroup var link: BenchLinkOptions

    func validate() throws {
        if let items, !(1...100).contains(items) { throw ValidationError("--items: 1 to 100") }
        if let runs, !(1...20).contains(runs) { throw ValidationError("--runs: 1 to 20") }
        _ = try itemBytes()
    }

    private func itemBytes() throws -> Int64 {
        guard let size else { return tiny ? 200_000 : quick ? 2_000_000 : 4_000_000 }
        do {
            let bytes = try ByteSize(parsing: size).bytes
            guard bytes > 0 else { throw ValidationError("--size: more than 0") }
            return bytes
        } catch let invalid as ArgumentText.Invalid {
            throw ValidationError("--size: \(invalid.description)")
        }
    }

    func run() async throws {
        let profiles = try link.profiles()
        let tools = try BenchTools.find()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spool-bench-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let www = root.appendingPathComponent("www", isDirectory: true)
        let count = items ?? (tiny ? 3 : quick ? 6 : 8)
        let media = try DownloadsMedia.make(in: www, count: count, length: try itemBytes())
        let kind = link.benchOrigin
        let authority = kind.kind == .http ? nil : try TestCertificateAuthority()
        let nginx = try NginxOrigin(
            serving: www, executable: tools.nginx, tls: authority.flatMap(kind.nginxTLS(authority:)),
            sendBufferBytes: BenchOrigin.sendBufferBehindLink)
        defer { nginx.stop() }
        let passes = runs ?? (tiny || quick ? 1 : 3)
        let ways: [DownloadsRun.Way] = [.curl, DownloadsReport.defaultWay] + (count > 2 ? [.spool(count)] : [])
        print(
            "spool bench downloads\(tiny ? " --tiny" : quick ? " --quick" : ""): \(count) items of "
                + "\(ByteCountText.format(media.items[0].length)), origin \(kind), "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(passes) run\(passes == 1 ? "" : "s")")
        let progress: (String) -> Void = { FileHandle.standardError.write(Data("bench downloads: \($0)\n".utf8)) }
        for profile in profiles {
            let run = DownloadsRun(
                items: media.items, originPort: nginx.port, scheme: kind.scheme,
                trustRoots: authority.map { [$0.certificateFile] } ?? [], profile: profile, curl: tools.curl,
                root: root)
            var results: [DownloadsRun.Way: [DownloadsRun.Result]] = [:]
            for pass in 0..<passes {
                // Ways alternate within a pass, so a noisy minute weighs on all of them.
                for way in ways {
                    progress("\(profile.name): run \(pass + 1) of \(passes), \(way)")
                    results[way, default: []].append(try await run.run(way, pass: pass))
                }
            }
            print()
            print(DownloadsReport(profile: profile, media: media, ways: ways, results: results).table)
        }
    }
}
