import Foundation

/// What the engine state asks its driver to do after an event: the state records each in its outbox
/// (`EngineState.takeActions`), and the driver's one `perform` (`FetchRunner.perform`) carries them out, in
/// order, the task starts under the entry's lock and the rest after it.
enum EngineAction: Equatable {
    /// Send request `fetch`, which the state has just opened: its first try, in a task of its own.
    case start(fetch: Int)
    /// Send request `fetch` again, `after` seconds from now, in a new task.
    case retry(fetch: Int, after: Double)
    /// Cancel request `fetch`'s task: no reader needs it, or it fetches a version that is gone. What it had
    /// received is still stored unless a new version came (`EngineState.didStore`).
    case cancel(fetch: Int)
    /// Request `fetch` has ended: its task and what it received but did not store are forgotten, its readers
    /// look again.
    case ended(fetch: Int)
    /// Start a try of the running discovery, `after` seconds from now, in a task of its own.
    case startDiscovery(after: Double)
    /// The discovery's task becomes the first try of request `fetch`, which its response opened.
    case discoveryBecame(fetch: Int)
    /// The discovery's task has ended: callers waiting for the content information find its outcome.
    case discoveryEnded
    /// The resource changed: the driver drops what it holds of the old bytes (bytes still arriving, the first
    /// bytes, the slices lent, which are asked back) and the write queue does what the reset owes.
    case newVersion
    /// Blocks were given up: the write queue clears their slots.
    case clearDiscarded
    /// Readers waiting for a change look again.
    case wakeReaders
    /// Requests held back look at their readers again (`FetchRunner.holdBack`).
    case wakeHolds
    /// The index record may be due: it is queued when the schedule says so (`IndexWriter.flushSoon`).
    case flushRecordSoon
}
