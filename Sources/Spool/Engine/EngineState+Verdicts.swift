/// What the state tells a reader to do next; what the driver does besides is in the state's actions.
extension EngineState {
    /// What a reader does next.
    enum Step {
        /// The read is complete.
        case finished
        /// Read these stored bytes; they belong to `versionNumber`.
        case read(Range<Int64>, versionNumber: Int)
        /// Wait for bytes: from requests it joined, or ones the step started (`EngineAction.start`).
        case wait
        /// Fail the read.
        case fail(any Error)
        /// Look at another process's record of the resource (and take in the bytes it stored), then step
        /// again: the step would start origin requests (see `EngineState.step`).
        case lookElsewhere
    }

    /// Why a step fails for a reader that has delivered nothing yet when the content information it opened with
    /// was dropped (the app removed the resource between the read's open and its first step): the read asks
    /// for the content information again and goes on if it describes the version it opened with
    /// (`ReadSession`).
    struct ContentInfoDropped: Error {}
}
