import ArgumentParser

/// `spool bench`: measurements of the engine, printed as tables.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the engine.",
        subcommands: [BenchStartup.self])
}
