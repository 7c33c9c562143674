import Foundation
import Spool

/// Prints what the cache reports through `SpoolConfiguration.onProblem`: one line per problem on standard
/// error, `spool: warning: <description>`, written with a single call so lines from concurrent reports
/// never interleave.
enum ProblemPrinter {
    /// The handler to put in the configuration.
    static let standardError: @Sendable (SpoolProblem) -> Void = { problem in
        FileHandle.standardError.write(Data("spool: warning: \(problem.description)\n".utf8))
    }
}
