import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Spool

/// `spool`: fill, inspect and clear a Spool cache from the command line.
@main
struct SpoolCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spool",
        abstract: "A disk cache that plays media while it fills.",
        subcommands: [
            Get.self, Info.self, List.self, Remove.self, Clear.self, Pin.self, Unpin.self, Serve.self, ProxyURL.self,
            Preload.self, Download.self, Stats.self, Demo.self, Simulate.self, Bench.self,
        ]
    )

    /// Runs the command with Spool's exit codes: 0 success, 1 a failure (one line on stderr), 2 a usage error.
    static func main() async {
        // A file size limit (`ulimit -f`) then makes cache writes fail with EFBIG, which the cache handles by
        // reading on from the origin, instead of killing the process.
        signal(SIGXFSZ, SIG_IGN)
        MemoryTuning.apply()
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
        if command is Serve {
            // The proxy's path crosses from SwiftNIO's event loops to Swift's own thread pool and back for every
            // request and chunk; with the loops as the pool, those hand-offs stay on the loops' threads. Its own
            // code never blocks a task (blocking work runs on `BlockingIO`'s queues), which a loop's thread must
            // not. Not shown to pay yet: a fresh `spool serve` beside Chromium (`spool bench run --only browser`,
            // AMD EPYC, 2 cores), four invocations of 5 runs with and without, interleaved: time to `playing`
            // 1.26 and 1.19 x direct's (medians of the invocations' medians; 0.92-1.45 each), 1.13 and 1.11 x
            // the slice proxy's with every core busy. (1.19 and 1.44 quiet in invocations a day apart.)
            NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
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
        } catch let error as SpoolError {
            FileHandle.standardError.write(Data("spool: \(error.description)\n".utf8))
            Foundation.exit(1)
        } catch let error as CommandFailure {
            FileHandle.standardError.write(Data("spool: \(error.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            // Help and validation surface here too when they come from a command's own run().
            switch exitCode(for: error) {
            case .success:
                print(fullMessage(for: error))
                Foundation.exit(0)
            case .validationFailure:
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            default:
                break
            }
            FileHandle.standardError.write(Data("spool: \(error)\n".utf8))
            Foundation.exit(1)
        }
    }
}

/// A failure the command reports on one line and exits 1 for.
struct CommandFailure: Error {
    let message: String
}
