@testable import Spool

extension EngineState {
    /// A reader's step as a table test reads it: the step, with the requests it started (its `.start`
    /// actions) for a wait.
    enum DriverStep {
        case finished
        case read(Range<Int64>, versionNumber: Int)
        case wait(start: [(id: Int, range: Range<Int64>)])
        case fail(any Error)
        case lookElsewhere
    }

    /// `step` as the driver takes it (`ResourceEngine.nextPart`): a step that would start requests first looks
    /// at another process's record (a table test has none, so the look adopts nothing), then steps again.
    mutating func driverStep(
        reader id: Int, position: Int64, link: LinkEstimate = LinkEstimate(), readLimit: Int64? = nil
    ) -> DriverStep {
        let before = actions.count
        var step = step(reader: id, position: position, link: link, readLimit: readLimit)
        if case .lookElsewhere = step {
            lookedElsewhere(reader: id)
            step = self.step(reader: id, position: position, link: link, readLimit: readLimit)
        }
        switch step {
        case .finished: return .finished
        case .read(let range, let versionNumber): return .read(range, versionNumber: versionNumber)
        case .fail(let error): return .fail(error)
        case .lookElsewhere: return .lookElsewhere
        case .wait:
            let started = actions.dropFirst(before).compactMap { action -> (id: Int, range: Range<Int64>)? in
                guard case .start(let id) = action, let fetch = fetches[id] else { return nil }
                return (id, fetch.position..<fetch.end)
            }
            return .wait(start: started)
        }
    }

    /// The requests reader `id`'s step at `position` starts when it waits (as `driverStep` takes it); `nil`
    /// when it does not wait.
    mutating func startedWaiting(reader id: Int, position: Int64, link: LinkEstimate) -> [(
        id: Int, range: Range<Int64>
    )]? {
        guard case .wait(let started) = driverStep(reader: id, position: position, link: link) else { return nil }
        return started
    }

    /// Gives the state `event`; returns the actions it asked for.
    mutating func actions(of event: (inout EngineState) -> Void) -> [EngineAction] {
        let before = actions.count
        event(&self)
        return Array(actions.dropFirst(before))
    }

    /// Gives the state `event`; returns the requests it cancelled.
    mutating func cancels(_ event: (inout EngineState) -> Void) -> [Int] {
        actions(of: event).compactMap { if case .cancel(let id) = $0 { id } else { nil } }
    }
}
