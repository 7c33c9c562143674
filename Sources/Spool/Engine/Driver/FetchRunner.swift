import Foundation

/// Origin requests: the first one, which brings the content information (`+Discovery`), and the runs that
/// fetch what readers need, with their retries and version checks; every chunk goes to the `ChunkWriter`. What
/// follows a failure is the state's decision (`EngineState.fetchFailed`); this type carries it out.
///
/// A try of a request is one task: it sends, receives the body in itself (only the storing runs beside it, as
/// its one child) and ends; another try is a new task (`startTry`). So a stall can cancel the try's task
/// (`StallWatch`) and nothing waits on a second task to learn of the response: on a cold first byte each such
/// hand-off between threads costs 0.1-0.2 ms on a 2-core machine.
struct FetchRunner: Sendable {
    let context: EntryContext
    let writer: ChunkWriter
    let lender: SliceLender
    var index: IndexWriter { writer.index }
    var url: URL { context.url }
    var origin: any Origin { context.origin }
    var environment: EngineEnvironment { context.environment }
    var policy: FetchPolicy { context.policy }
    var locked: LockedBox<LockedEntry> { context.locked }

    /// Starts a try of request `id` in a task of its own, `delay` seconds from now, with the lock held.
    func startTry(_ id: Int, after delay: TimeInterval, isRetry: Bool, in entry: inout LockedEntry) {
        entry.tasks[id] = watchedTry(
            after: delay, ifCancelledWaiting: { finishFetch(id, failure: nil) },
            body: { await runTry(id, watch: $0, isRetry: isRetry) })
    }

    /// A task that runs `body` with the `StallWatch` that watches it, `delay` seconds from now; cancelled
    /// while it waits, it runs `ifCancelledWaiting` instead. Every try of a request is one.
    func watchedTry(
        after delay: TimeInterval, ifCancelledWaiting: @escaping @Sendable () -> Void,
        body: @escaping @Sendable (StallWatch) async -> Void
    ) -> Task<Void, Never> {
        let (link, url) = (environment.link, url)
        let watch = StallWatch(
            timeout: policy.stallTimeout, clock: environment.clock, busyLinkTimeout: policy.busyLinkStallTimeout,
            hostAnswered: { link.lastAnswer(for: url) }, server: NetworkFailure.authority(of: url))
        let task = Task {
            if delay > 0 {
                do { try await environment.clock.sleep(until: environment.clock.uptime + delay) } catch {
                    return ifCancelledWaiting()
                }
            }
            await body(watch)
        }
        watch.watch(task)
        return task
    }

    /// Sends `request` and waits for its response head, which `watch` times as a stall; tells the link monitor
    /// of both. The caller tells it of the request's end, as of one that failed here.
    func send(_ request: OriginReadRequest, watch: StallWatch) async throws -> (
        response: OriginReadResponse, sentAt: TimeInterval
    ) {
        let sentAt = environment.clock.uptime
        let newConnection = environment.link.requestSent(url, at: sentAt)
        // A response head that does not come is a stall too (a silent link, a server that hangs).
        watch.arm()
        let response = try await origin.read(request)
        watch.touch()
        environment.link.responded(
            url, after: environment.clock.uptime - sentAt, newConnection: newConnection,
            multiplexed: response.multiplexed,
            initialStreamWindow: response.initialStreamWindow)
        return (response, sentAt)
    }

    /// One try of request `id`, in the task `watch` watches: sends it (unless `opened` is the response to a
    /// request sent before the engine knew the resource, at `sentAt`; see `discover`) and stores its body
    /// until the request has what it asked for, is cancelled or fails. A response that delivers nothing for
    /// `stallTimeout` is dropped; what follows a failure (another try, the end, a new version) is the state's
    /// decision (`EngineState.fetchFailed`).
    func runTry(
        _ id: Int, watch: StallWatch, opened: OriginReadResponse? = nil, sentAt: TimeInterval = 0, isRetry: Bool
    ) async {
        var sentAt = sentAt
        // Whether a request is out, for the link monitor's count of connections; the first response's
        // request was counted when `discover` sent it.
        var sending = opened != nil
        let next = perform { entry in
            if !isRetry { entry.state.fetchStarted(id, at: environment.clock.uptime) }
            // Abandoned between two sends (a retry): nobody waits for another.
            entry.state.expireAbandoned(fetch: id, byItsOwnTask: true)
            // A request serves a player when a player's reader waits for it (the rest read ahead).
            let servesPlayer =
                entry.state.fetches[id]?.interested.contains { entry.state.readers[$0]?.isPrefetch == false } ?? false
            return entry.state.remaining(of: id).map {
                ($0, entry.state.info?.rangeValidator, servesPlayer, entry.state.info?.mimeType)
            }
        }
        guard let (range, validator, servesPlayer, mimeType) = next else {
            watch.disarm()
            if sending { environment.link.requestEnded(url, reusable: false) }
            return finishFetch(id, failure: nil)
        }
        let progress = LockedBox(false)
        do {
            let response: OriginReadResponse
            if let opened {
                response = opened
            } else {
                sending = true
                let clientData = context.clientData(forPlayer: servesPlayer, mimeType: mimeType)
                (response, sentAt) = try await send(
                    OriginReadRequest(url: url, range: range, validator: validator, clientData: clientData),
                    watch: watch)
                absorb(response, requested: range.lowerBound, fetch: id)
            }
            let reached = try await receive(response, fetch: id, watch: watch) { progress.withLock { $0 = true } }
            watch.disarm()
            environment.link.delivered(reached - response.offset, from: url, after: environment.clock.uptime - sentAt)
            let expected = response.offset == range.lowerBound ? range.upperBound : response.info.length
            // A body read to its end leaves its connection open for the next request.
            environment.link.requestEnded(url, reusable: reached >= expected)
            sending = false
            guard let left = locked.withLock({ $0.state.remaining(of: id) }), !Task.isCancelled else {
                return finishFetch(id, failure: nil)
            }
            throw SpoolError.truncatedBody(
                expected: expected - response.offset, received: left.lowerBound - response.offset)
        } catch {
            watch.disarm()
            if sending { environment.link.requestEnded(url, reusable: false) }
            failed(id, error: error, watch: watch, progressed: progress.withLock { $0 })
        }
    }

    /// Carries out what the state decides after try `watch` of request `id` failed with `error`: another try
    /// in a task of its own, or the end.
    private func failed(_ id: Int, error: any Error, watch: StallWatch, progressed: Bool) {
        // The watch's own cancellations are not the readers': a stall is retried as a timeout.
        let error = watch.explained(error)
        let cancelled = Task.isCancelled && watch.stop == nil
        let now = environment.clock.uptime
        perform { $0.state.fetchFailed(id, error: error, progressed: progressed, cancelled: cancelled, at: now) }
    }

    /// Stores the body of `response` for request `id` until the request has what it asked for. Fails with
    /// `SpoolError.timedOut` when `watch` finds no byte arriving for `stallTimeout`; `onBytes` is told of
    /// every chunk. Returns the resource offset where the body stopped being stored.
    ///
    /// The body is received in the calling task and stored by its one child, the two joined by a `ChunkPipe`:
    /// the next chunks arrive while a batch is written. Bytes received before the body fails or the request is
    /// cancelled are still stored (they are paid for), then the failure is thrown.
    private func receive(
        _ response: OriginReadResponse, fetch id: Int, watch: StallWatch, onBytes: @escaping @Sendable () -> Void
    ) async throws -> Int64 {
        let (url, link, statistics) = (url, environment.link, environment.statistics)
        let pipe = ChunkPipe(start: response.offset, limit: environment.writeBatchLimit)
        link.bodyStarted(url, at: environment.clock.uptime)
        defer { link.bodyEnded(url, at: environment.clock.uptime) }
        return try await withThrowingTaskGroup(of: Int64.self) { [context] group in
            group.addTask {
                // Ending before the body does (all asked for is stored, or a write failed), the storing side
                // frees a receiver waiting for room and stops the body: nothing more of it would be stored.
                defer { pipe.finish() }
                do {
                    return try await store(from: pipe, startingAt: response.offset, fetch: id, watch: watch)
                } catch {
                    watch.bodyNotNeeded()
                    throw error
                }
            }
            var failure: (any Error)?
            var arrivedAt = response.offset
            // How far it may run ahead of its readers, from the link as measured now, and again every MiB: the
            // monitor's lock is not taken on every chunk.
            var (readAheadLimit, limitSetAt) = (readAheadLimit(for: response), response.offset)
            do {
                for try await chunk in response.body {
                    watch.touch()
                    link.received(chunk.count, from: url, at: environment.clock.uptime)
                    statistics.fetched(chunk.count)
                    guard !chunk.isEmpty else { continue }
                    onBytes()
                    if arrivedAt - limitSetAt >= 1 << 20 {
                        (readAheadLimit, limitSetAt) = (self.readAheadLimit(for: response), arrivedAt)
                    }
                    let goesOn = await holdBack(
                        fetch: id, pausing: response.pausesWhileUnread, readAheadLimit: readAheadLimit,
                        multiplexed: response.multiplexed, watch: watch)
                    // Readers waiting here take the bytes now; the write stores the same ones.
                    context.arrived(chunk, at: arrivedAt, fetch: id)
                    arrivedAt += Int64(chunk.count)
                    await pipe.push(chunk)
                    if !goesOn { throw CancellationError() }
                    try Task.checkCancellation()
                }
            } catch {
                failure = error
            }
            pipe.finish()
            // The storing side's end: what it reached, or its failure, which comes first.
            let reached = try await group.next() ?? response.offset
            switch watch.stop {
            case .stalled?: throw SpoolError.timedOut(server: NetworkFailure.authority(of: url))
            case .bodyNotNeeded?: return reached
            case nil:
                if let failure { throw failure }
                return reached
            }
        }
    }

    /// How far `response` may store ahead of its readers before it is held back: a request asking for a read's
    /// rest (its origin's bodies pause while unread) is bounded so; `nil` otherwise.
    private func readAheadLimit(for response: OriginReadResponse) -> Int64? {
        let link = context.linkEstimate()
        guard link.pausesWhileUnread, response.pausesWhileUnread else { return nil }
        return policy.readAheadOfReaders(link)
    }

    /// The storing side of `receive`: writes what `pipe` hands over until the body ends or request `id` has
    /// what it asked for (then `watch` stops the body); returns the resource offset reached.
    private func store(from pipe: ChunkPipe, startingAt start: Int64, fetch id: Int, watch: StallWatch)
        async throws -> Int64
    {
        var offset = start
        var lookedElsewhere = false
        storing: while let (batch, batchStart) = await pipe.take() {
            var rest = batch[...]
            offset = batchStart
            if !lookedElsewhere {
                let reach = offset + rest.reduce(0) { $0 + Int64($1.count) }
                if locked.withLock({ $0.state.entersSharedLastBlock(fetch: id, reaching: reach) }) {
                    // Another process's part of the block this request ends in is taken in before this one's.
                    lookedElsewhere = true
                    _ = try? await BlockingIO.run { [index] in index.adoptStoredElsewhere() }
                }
            }
            while !rest.isEmpty {
                let (taken, written, more) = try await writer.store(Array(rest), at: offset, fetch: id)
                // A fast download would sync every few milliseconds: every `EngineState.minimumRecordInterval`
                // keeps what a crash costs small (bytes not yet claimed are fetched again, never served wrong).
                let now = environment.clock.uptime
                offset += rest.prefix(taken).reduce(0) { $0 + Int64($1.count) }
                rest = rest.dropFirst(taken)
                perform { [offset] entry in
                    entry.state.wrote(written, at: now)
                    entry.arriving.drop(fetch: id, before: offset)
                }
                context.notifyReaders()
                switch more {
                case false?:
                    watch.bodyNotNeeded()
                    break storing
                case true?: continue
                case nil:
                    // A new version waits for the old one's file slices before it empties the file.
                    await lender.slicesReturned()
                    try Task.checkCancellation()
                }
            }
            pipe.stored()
            // Cancelled, the receiver stops and finishes the pipe; what it received is stored first (it is paid
            // for, and a reader may already have taken it from memory), then `take` ends.
        }
        return offset
    }

    /// Checks a response's version; a new one replaces the stored bytes before any of its own are written.
    private func absorb(_ response: OriginReadResponse, requested: Int64, fetch id: Int) {
        perform { $0.state.absorb(response.info, servedFrom: response.offset, requested: requested, fetch: id) }
    }

    /// Ends request `id`, its readers failing with `failure` when there is one.
    func finishFetch(_ id: Int, failure: (any Error)?) {
        perform { $0.state.finishFetch(id, failure: failure) }
    }
}
