import ArgumentParser

/// `spool bench`: measurements of the engine and the proxy, printed as tables.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the engine and the proxy.",
        subcommands: [BenchRun.self, BenchStartup.self, BenchFeed.self, BenchDownloads.self])
}
