/// When a transfer whose body its reader has stopped taking pauses, and when it goes on: the body's bytes
/// received and not yet taken between two marks.
///
/// A transport that pushes its body (URLSession calls its delegate with every chunk) holds back the network
/// only by pausing the transfer. Paused above `pauseAbove` buffered bytes and going on at `resumeBelow` or
/// fewer, a body that nobody reads holds at most `pauseAbove` plus what is on its way in memory, and its
/// socket's receive window then stops the sender: the engine's hold on a request that ran ahead of its
/// readers (`EngineState.Hold.aheadOfReaders`) holds back the link, as it does with AsyncHTTPClient.
struct BodyFlow: Sendable, Equatable {
    /// What the transfer's driver does.
    enum Action: Sendable, Equatable {
        /// Stop receiving: the reader is far behind.
        case pause
        /// Receive again: the reader took enough.
        case resume
    }

    /// Buffered bytes at or above which the transfer pauses; `nil` when it never does (a transport whose
    /// transfers cannot pause without starting over).
    let pauseAbove: Int?
    /// Buffered bytes at or below which a paused transfer goes on.
    let resumeBelow: Int
    /// Bytes received and not yet taken.
    private(set) var buffered = 0
    /// Whether the transfer is paused.
    private(set) var paused = false

    /// A flow that pauses at `pauseAbove` buffered bytes (never when `nil`) and goes on at `resumeBelow`.
    init(pauseAbove: Int?, resumeBelow: Int) {
        self.pauseAbove = pauseAbove
        self.resumeBelow = pauseAbove.map { min(resumeBelow, $0) } ?? resumeBelow
    }

    /// Records `count` bytes received and buffered; `.pause` when they reach the mark.
    mutating func received(_ count: Int) -> Action? {
        buffered += count
        guard let pauseAbove, !paused, buffered >= pauseAbove else { return nil }
        paused = true
        return .pause
    }

    /// Records `count` buffered bytes taken by the reader; `.resume` when a paused transfer may go on.
    mutating func taken(_ count: Int) -> Action? {
        buffered = max(0, buffered - count)
        guard paused, buffered <= resumeBelow else { return nil }
        paused = false
        return .resume
    }
}
