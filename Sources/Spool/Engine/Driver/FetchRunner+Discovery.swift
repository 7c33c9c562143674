import Foundation

/// The first request of a resource the engine does not know: it brings the content information, and its body
/// is kept as any request's is. Its try goes on, in the same task, as the first try of the request the state
/// opens for it: the response's first bytes reach readers without another task taking them over.
extension FetchRunner {
    /// Where the content information is asked from, and how the tries so far went.
    struct Discovery: Sendable {
        /// Where the first reader starts, and where it stops (`nil`: to the end).
        let offset: Int64
        let end: Int64?
        let extent: ReadExtent
        /// When the first try was sent, and how many failed in a row.
        var began: TimeInterval
        var failures = 0
    }

    /// Starts a try of `discovery` in a task of its own, `delay` seconds from now, with the lock held. Its
    /// outcome is the state's content information or `EntryInner.discoveryFailure`, and readers are woken.
    func startDiscovery(_ discovery: Discovery, after delay: TimeInterval = 0, in inner: inout EntryInner) {
        // A retry goes on with the round its waiters wait for; a new discovery starts one.
        if discovery.failures == 0 { inner.discoveryRound += 1 }
        inner.discoveryTask = watchedTry(
            after: delay, ifCancelledWaiting: { endDiscovery(failure: CancellationError()) },
            body: { await discover(discovery, watch: $0) })
    }

    /// One try of `discovery`: a first range request from its offset where the origin allows it, otherwise
    /// (or when that request cannot tell, as past the end) the origin's own call for the content information.
    private func discover(_ discovery: Discovery, watch: StallWatch) async {
        guard origin.canReadBeforeContentInfo else { return await askForContentInfo() }
        let link = environment.link.estimate(for: url)
        let start = max(0, discovery.offset)
        // Until its head arrives nothing else can be asked for: it carries a window and a piece (what the
        // link carries until the requests sent on its head deliver), or a first request's size for a host
        // nothing is known of.
        let ahead = policy.readAhead(afterConsuming: 0, link: link)
        var size = link.roundTrip == nil ? policy.firstRequestSize(for: url) : ahead.window + ahead.piece
        if discovery.extent == .whole { size = FetchPolicy.wholeRequestLimit }
        if let end = discovery.end, end > start {
            // A bounded read no larger than a first request is asked for whole: it is wanted whole, and a
            // second request for its rest (on loopback, a 64 KiB range in two) costs more than its bytes.
            size = end - start <= policy.firstRequestSize ? end - start : min(size, end - start)
        }
        let requested = start..<(start + size)
        let (response, sent): (OriginReadResponse, TimeInterval)
        do {
            (response, sent) = try await send(OriginReadRequest(url: url, range: requested), watch: watch)
        } catch {
            watch.disarm()
            environment.link.requestEnded(url, reusable: false)
            return await retry(discovery, after: watch.explained(error))
        }
        let (id, cancelled, changed) = inner.withLock { inner -> (Int, [Task<Void, Never>], Bool) in
            let generation = inner.state.generation
            let opened = inner.state.openDiscovered(response.info, servedFrom: response.offset, requested: requested)
            let changed = inner.state.generation != generation
            if changed { VersionReset.begin(in: &inner) }
            inner.dirty = true
            // This task goes on as the new request's first try: cancelling the request cancels it.
            inner.tasks[opened.id] = inner.discoveryTask
            inner.discoveryTask = nil
            return (opened.id, opened.cancelled.compactMap { inner.tasks[$0] }, changed)
        }
        if changed { writer.catchUp() }
        for task in cancelled { task.cancel() }
        core.notifyReaders()
        await runTry(id, watch: watch, opened: response, sentAt: sent, isRetry: false)
    }

    /// After a failed try: another one, the origin's own call where the range request cannot tell, or the end.
    private func retry(_ discovery: Discovery, after error: any Error) async {
        switch error {
        case SpoolError.rangeNotSatisfiable, SpoolError.invalidResponse:
            // Past the end, or an answer without a length: the origin's own call says what there is.
            return await askForContentInfo()
        default: break
        }
        var next = discovery
        next.failures += 1
        // A try the watch cancelled is retried in a new task (the next try's sleep would end at once here).
        let retried = inner.withLock { inner -> Bool in
            guard
                policy.retries(
                    after: error, failuresInARow: next.failures, silentFor: environment.clock.uptime - next.began)
            else { return false }
            startDiscovery(next, after: policy.retryWait(attempt: next.failures), in: &inner)
            return true
        }
        if !retried { endDiscovery(failure: error) }
    }

    /// The origin's own call for the content information.
    private func askForContentInfo() async {
        do {
            let info = try await origin.contentInfo(for: url)
            inner.withLock { inner in
                if inner.state.learn(info) { inner.dirty = true }
            }
            endDiscovery(failure: nil)
        } catch {
            endDiscovery(failure: error)
        }
    }

    /// Ends the discovery running: readers waiting for the content information find it in the state, or
    /// `failure`.
    private func endDiscovery(failure: (any Error)?) {
        let idle = inner.withLock { inner -> Bool in
            inner.discoveryTask = nil
            if let failure { inner.discoveryFailure = (inner.discoveryRound, failure) }
            return inner.isIdle
        }
        core.notifyReaders()
        if idle { core.becameIdle() }
    }
}
