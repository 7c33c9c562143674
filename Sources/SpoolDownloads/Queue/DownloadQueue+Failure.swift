extension DownloadQueue {
    /// Why a queue cannot be opened or written down.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another process runs the queue of the cache in this directory.
        case inUse(String)
        /// The queue's file cannot be read or written.
        case storage(String)
        /// The queue was stopped: it changes nothing more (another may run the cache's downloads now).
        case stopped

        /// What went wrong, for a person.
        public var description: String {
            switch self {
            case .inUse(let directory): "another process runs the download queue of \(directory)"
            case .storage(let reason): reason
            case .stopped: "the download queue was stopped"
            }
        }
    }
}
