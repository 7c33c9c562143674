/// What the state tells its driver to do: for a reader's next step, and after a failed request.
extension EngineState {
    /// What a reader does next.
    enum Step {
        /// The read is complete.
        case finished
        /// Read these stored bytes; they belong to `versionNumber`.
        case read(Range<Int64>, versionNumber: Int)
        /// Wait for bytes, after starting these requests.
        case wait(start: [(id: Int, range: Range<Int64>)])
        /// Fail the read.
        case fail(any Error)
        /// Look at another process's record of the resource (and take in the bytes it stored), then step
        /// again: the step would start origin requests (see `EngineState.step`).
        case lookElsewhere
    }
}
