import Foundation

/// The tries of a discovery (`EngineState+Discovery`): the first request of a resource the engine does not
/// know brings the content information, and its body is kept as any request's is. Its try goes on, in the same
/// task, as the first try of the request the state opens for it: the response's first bytes reach readers
/// without another task taking them over. What each try asks for and what follows a failure are the state's
/// decisions; this carries them out.
extension FetchRunner {
    /// Starts a try of the state's running discovery in a task of its own, `delay` seconds from now, with the
    /// lock held. Its outcome is in the state (`EngineState.discoveryOutcome`), and waiters are woken.
    func startDiscovery(after delay: TimeInterval = 0, in entry: inout LockedEntry) {
        entry.discoveryTask = watchedTry(
            after: delay, ifCancelledWaiting: { discoveryEnded(failure: CancellationError()) },
            body: { await discover(watch: $0) })
    }

    /// One try of the running discovery, as the state decides it.
    private func discover(watch: StallWatch) async {
        let link = environment.link.estimate(for: url)
        let (firstRequestSize, originReadsFirst) = (policy.firstRequestSize(for: url), origin.canReadBeforeContentInfo)
        let action = locked.withLock {
            $0.state.discoveryRequest(
                link: link, firstRequestSize: firstRequestSize, originReadsFirst: originReadsFirst)
        }
        await perform(action, watch: watch)
    }

    private func perform(_ action: EngineState.DiscoveryAction, watch: StallWatch) async {
        switch action {
        case .send(let requested): await sendFirst(requested, watch: watch)
        case .askOrigin: await askForContentInfo()
        case .retry: break  // The state's next try runs in its own task (`failed`).
        case .fail(let error): discoveryEnded(failure: error)
        }
    }

    /// Sends the first request; its response opens the request the rest of its body belongs to.
    private func sendFirst(_ requested: Range<Int64>, watch: StallWatch) async {
        let (response, sent): (OriginReadResponse, TimeInterval)
        do {
            (response, sent) = try await send(OriginReadRequest(url: url, range: requested), watch: watch)
        } catch {
            watch.disarm()
            environment.link.requestEnded(url, reusable: false)
            return await failed(after: watch.explained(error), watch: watch)
        }
        let id = changeVersion { entry -> (stopped: [Int]?, result: Int) in
            let versionNumber = entry.state.versionNumber
            let opened = entry.state.openDiscovered(response.info, servedFrom: response.offset, requested: requested)
            // This task goes on as the new request's first try: cancelling the request cancels it.
            entry.tasks[opened.id] = entry.discoveryTask
            entry.discoveryTask = nil
            return (entry.state.versionNumber != versionNumber ? opened.cancelled : nil, opened.id)
        }
        await runTry(id, watch: watch, opened: response, sentAt: sent, isRetry: false)
    }

    /// After a failed try: what the state decides. A retry starts its own task under the same lock (a try the
    /// watch cancelled would end its next try's sleep at once here).
    private func failed(after error: any Error, watch: StallWatch) async {
        let now = environment.clock.uptime
        let action = locked.withLock { entry in
            let action = entry.state.discoveryFailed(error, at: now)
            if case .retry(let delay) = action { startDiscovery(after: delay, in: &entry) }
            return action
        }
        await perform(action, watch: watch)
    }

    /// The origin's own call for the content information.
    private func askForContentInfo() async {
        do {
            let info = try await origin.contentInfo(for: url)
            locked.withLock { _ = $0.state.originDescribed(info) }
            discoveryEnded(failure: nil)
        } catch {
            discoveryEnded(failure: error)
        }
    }

    /// The discovery's task ends: the state records `failure` if it has not ended the discovery itself, and
    /// callers waiting for the content information find the outcome there.
    private func discoveryEnded(failure: (any Error)?) {
        let idle = locked.withLock { entry -> Bool in
            entry.discoveryTask = nil
            entry.state.endDiscovery(failure: failure)
            return entry.isIdle
        }
        context.notifyReaders()
        if idle { context.becameIdle() }
    }
}
