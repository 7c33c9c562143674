import ArgumentParser
import Foundation
import Spool

/// `spool`: fill, inspect and clear a Spool cache from the command line.
@main
struct SpoolCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spool",
        abstract: "A disk cache that plays media while it fills.",
        subcommands: [Get.self, Info.self, List.self, Remove.self, Clear.self, Demo.self]
    )

    /// Runs the command with Spool's exit codes: 0 success, 1 a failure (one line on stderr), 2 a usage error.
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            FileHandle.standardError.write(Data("spool: \(describe(error))\n".utf8))
            Foundation.exit(1)
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? SpoolError { return error.description }
        if let error = error as? CommandFailure { return error.message }
        return String(describing: error)
    }
}

/// A failure the command reports on one line and exits 1 for.
struct CommandFailure: Error {
    let message: String
}
