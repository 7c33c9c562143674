import Foundation

/// The tries of a discovery (`EngineState+Discovery`): the first request of a resource the engine does not
/// know brings the content information, and its body is kept as any request's is. Its try goes on, in the same
/// task, as the first try of the request the state opens for it: the response's first bytes reach readers
/// without another task taking them over. What each try asks for and what follows a failure are the state's
/// decisions; this carries them out.
extension FetchRunner {
    /// Starts a try of the state's running discovery in a task of its own, `delay` seconds from now, with the
    /// lock held (`EngineAction.startDiscovery`). Its outcome is in the state (`EngineState.discoveryOutcome`),
    /// and waiters are woken.
    func startDiscovery(after delay: TimeInterval = 0, in entry: inout LockedEntry) {
        entry.discoveryTask = watchedTry(
            after: delay, ifCancelledWaiting: { perform { $0.state.endDiscovery(failure: CancellationError()) } },
            body: { await discover(watch: $0) })
    }

    /// One try of the running discovery, as the state decides it.
    private func discover(watch: StallWatch) async {
        let link = context.linkEstimate()
        let (firstRequestSize, originReadsFirst) = (policy.firstRequestSize(for: url), origin.canReadBeforeContentInfo)
        let next = perform {
            $0.state.discoveryRequest(
                link: link, firstRequestSize: firstRequestSize, originReadsFirst: originReadsFirst)
        }
        await run(next, watch: watch)
    }

    private func run(_ next: EngineState.DiscoveryTry, watch: StallWatch) async {
        switch next {
        case .send(let requested): await sendFirst(requested, watch: watch)
        case .askOrigin: await askForContentInfo()
        case .done: break
        }
    }

    /// Sends the first request; its response opens the request the rest of its body belongs to.
    private func sendFirst(_ requested: Range<Int64>, watch: StallWatch) async {
        let (response, sent): (OriginReadResponse, TimeInterval)
        do {
            let clientData = context.clientData(forPlayer: nil, mimeType: nil)
            (response, sent) = try await send(
                OriginReadRequest(url: url, range: requested, clientData: clientData), watch: watch)
        } catch {
            watch.disarm()
            environment.link.requestEnded(url, reusable: false)
            return await failed(after: watch.explained(error), watch: watch)
        }
        // This task goes on as the new request's first try (`EngineAction.discoveryBecame`).
        let id = perform { $0.state.openDiscovered(response.info, servedFrom: response.offset, requested: requested) }
        await runTry(id, watch: watch, opened: response, sentAt: sent, isRetry: false)
    }

    /// After a failed try: what the state decides. A retry starts its own task under the same lock (a try the
    /// watch cancelled would end its next try's sleep at once here).
    private func failed(after error: any Error, watch: StallWatch) async {
        let now = environment.clock.uptime
        await run(perform { $0.state.discoveryFailed(error, at: now) }, watch: watch)
    }

    /// The origin's own call for the content information.
    private func askForContentInfo() async {
        do {
            let info = try await origin.contentInfo(for: url)
            perform { $0.state.originDescribed(info) }
        } catch {
            perform { $0.state.endDiscovery(failure: error) }
        }
    }
}
