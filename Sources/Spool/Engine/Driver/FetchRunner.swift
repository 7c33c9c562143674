import Foundation

/// Origin requests: the first one, which brings the content information, and the runs that fetch what readers
/// need, with their retries and version checks; every chunk goes to the `ChunkWriter`. What follows a failure
/// is the state's decision (`EngineState.fetchFailed`); this type carries it out.
struct FetchRunner: Sendable {
    let core: EntryCore
    let writer: ChunkWriter
    let lender: SliceLender
    var index: IndexWriter { writer.index }
    private var url: URL { core.url }
    private var origin: any Origin { core.origin }
    private var environment: EngineEnvironment { core.environment }
    private var policy: FetchPolicy { core.policy }
    private var inner: LockedBox<EntryInner> { core.inner }

    /// Starts the task of request `id`, which the state has just created, with the lock held.
    func start(_ id: Int, in inner: inout EntryInner) {
        inner.tasks[id] = Task { await runFetch(id) }
    }

    /// Asks the origin for the content information: with a first range request from `offset` where the
    /// origin allows it, otherwise (or when that request cannot tell, as past the end) with its own call.
    func discoverContentInfo(near offset: Int64, until end: Int64?, extent: ReadExtent = .mayStopEarly)
        async throws -> ContentInfo
    {
        guard origin.canReadBeforeContentInfo else { return try await origin.contentInfo(for: url) }
        let link = environment.link.estimate(for: url)
        let start = max(0, offset)
        // Until its head arrives nothing else can be asked for: it carries a window and a piece (what the
        // link carries until the requests sent on its head deliver), or `firstRequestSize` for a host
        // nothing is known of.
        let ahead = policy.readAhead(afterConsuming: 0, link: link)
        var size = link.roundTrip == nil ? policy.firstRequestSize : ahead.window + ahead.piece
        if extent == .whole { size = FetchPolicy.wholeRequestLimit }
        if let end, end > start {
            // A bounded read no larger than a first request is asked for whole: it is wanted whole, and a
            // second request for its rest (on loopback, a 64 KiB range in two) costs more than its bytes.
            size = end - start <= policy.firstRequestSize ? end - start : min(size, end - start)
        }
        let requested = start..<(start + size)
        let (origin, request) = (origin, OriginReadRequest(url: url, range: requested))
        let began = LinkMonitor.now
        var failures = 0
        let response: OriginReadResponse
        var sent = began
        while true {
            sent = LinkMonitor.now
            let newConnection = environment.link.requestSent(url, at: sent)
            do {
                response = try await Deadline.run(within: policy.stallTimeout) { try await origin.read(request) }
                environment.link.responded(
                    url, after: LinkMonitor.now - sent, newConnection: newConnection, multiplexed: response.multiplexed)
                break
            } catch SpoolError.rangeNotSatisfiable, SpoolError.invalidResponse {
                environment.link.requestEnded(url, reusable: false)
                // Past the end, or an answer without a length: the origin's own call says what there is.
                return try await origin.contentInfo(for: url)
            } catch {
                environment.link.requestEnded(url, reusable: false)
                failures += 1
                guard policy.retries(after: error, failuresInARow: failures, silentFor: LinkMonitor.now - began) else {
                    throw error
                }
                try await Task.sleep(nanoseconds: UInt64(policy.retryWait(attempt: failures) * 1_000_000_000))
            }
        }
        let (cancelled, info, changed) = inner.withLock { inner -> ([Task<Void, Never>], ContentInfo, Bool) in
            let generation = inner.state.generation
            let opened = inner.state.openDiscovered(response.info, servedFrom: response.offset, requested: requested)
            let changed = inner.state.generation != generation
            if changed { VersionReset.begin(in: &inner) }
            inner.dirty = true
            inner.tasks[opened.id] = Task { [sent] in await runFetch(opened.id, opened: response, sentAt: sent) }
            return (opened.cancelled.compactMap { inner.tasks[$0] }, inner.state.info ?? response.info, changed)
        }
        if changed { writer.catchUp() }
        for task in cancelled { task.cancel() }
        core.notifyReaders()
        return info
    }

    /// Runs request `id` until it has delivered its range, is cancelled or fails for good; `opened` is its
    /// response when it was sent before the engine knew the resource (see `discoverContentInfo`), at `sentAt`.
    ///
    /// A response that delivers nothing for `stallTimeout` is dropped; what follows a failure (another try,
    /// the end, a new version) is the state's decision (`EngineState.fetchFailed`).
    func runFetch(_ id: Int, opened: OriginReadResponse? = nil, sentAt: TimeInterval = LinkMonitor.now) async {
        var opened = opened
        var sentAt = sentAt
        // Whether a request is out, for the link monitor's count of connections; the first response's
        // request was counted when `discoverContentInfo` sent it.
        var sending = opened != nil
        inner.withLock { $0.state.fetchStarted(id, at: LinkMonitor.now) }
        while true {
            let next = inner.withLock { inner in
                // Abandoned between two sends (a retry): nobody waits for another.
                inner.state.expireAbandoned(fetch: id)
                return inner.state.remaining(of: id).map { ($0, inner.state.info?.rangeValidator) }
            }
            guard let (range, validator) = next else {
                if sending { environment.link.requestEnded(url, reusable: false) }
                return finishFetch(id, failure: nil)
            }
            let progress = LockedBox(false)
            do {
                let response: OriginReadResponse
                if let first = opened {
                    response = first
                    opened = nil
                } else {
                    sentAt = LinkMonitor.now
                    let (origin, request) = (origin, OriginReadRequest(url: url, range: range, validator: validator))
                    let newConnection = environment.link.requestSent(url, at: sentAt)
                    sending = true
                    // A response head that does not come is a stall too (a silent link, a server that hangs).
                    response = try await Deadline.run(within: policy.stallTimeout) { try await origin.read(request) }
                    environment.link.responded(
                        url, after: LinkMonitor.now - sentAt, newConnection: newConnection,
                        multiplexed: response.multiplexed)
                    absorb(response, requested: range.lowerBound, fetch: id)
                }
                let reached = try await receive(response, fetch: id) { progress.withLock { $0 = true } }
                environment.link.delivered(reached - response.offset, from: url, after: LinkMonitor.now - sentAt)
                let expected = response.offset == range.lowerBound ? range.upperBound : response.info.length
                // A body read to its end leaves its connection open for the next request.
                environment.link.requestEnded(url, reusable: reached >= expected)
                sending = false
                guard let left = inner.withLock({ $0.state.remaining(of: id) }), !Task.isCancelled else {
                    return finishFetch(id, failure: nil)
                }
                throw SpoolError.truncatedBody(
                    expected: expected - response.offset, received: left.lowerBound - response.offset)
            } catch {
                if sending { environment.link.requestEnded(url, reusable: false) }
                sending = false
                let (progressed, cancelled) = (progress.withLock { $0 }, Task.isCancelled)
                let verdict = inner.withLock {
                    $0.state.fetchFailed(
                        id, error: error, progressed: progressed, cancelled: cancelled, at: LinkMonitor.now)
                }
                switch verdict {
                case .stop:
                    return fetchEnded(id)
                case .fail:
                    return fetchEnded(id)
                case .newVersion(let others):
                    // The resource shrank or grew: nothing stored can be trusted to match it.
                    let cancelled = inner.withLock { inner in
                        VersionReset.begin(in: &inner)
                        return others.compactMap { inner.tasks[$0] }
                    }
                    writer.catchUp()
                    for task in cancelled { task.cancel() }
                    return fetchEnded(id)
                case .retry(let delay):
                    do { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) } catch {
                        return finishFetch(id, failure: nil)
                    }
                }
            }
        }
    }

    /// Stores the body of `response` for request `id` until the request has what it asked for. Fails with
    /// `SpoolError.timedOut` when no byte arrives for `stallTimeout`; `onBytes` is told of every chunk.
    /// Returns the resource offset where the body stopped being stored.
    ///
    /// Receiving and storing run side by side, joined by a `ChunkPipe`: the next chunks arrive while a batch
    /// is written. Bytes received before the body fails or the request is cancelled are still stored (they
    /// are paid for), then the failure is thrown.
    private func receive(
        _ response: OriginReadResponse, fetch id: Int, onBytes: @escaping @Sendable () -> Void
    ) async throws -> Int64 {
        let url = url
        let link = environment.link
        let statistics = environment.statistics
        let stallTimeout = policy.stallTimeout
        let lastByte = LockedBox(LinkMonitor.now)
        let pipe = ChunkPipe(start: response.offset, limit: environment.writeBatchLimit)
        link.bodyStarted(url, at: LinkMonitor.now)
        defer { link.bodyEnded(url, at: LinkMonitor.now) }
        return try await withThrowingTaskGroup(of: Outcome.self) { [writer, lender, core] group in
            group.addTask {
                defer { pipe.finish() }
                var arrivedAt = response.offset
                do {
                    for try await chunk in response.body {
                        let now = LinkMonitor.now
                        lastByte.withLock { $0 = now }
                        link.received(chunk.count, from: url, at: now)
                        statistics.fetched(chunk.count)
                        guard !chunk.isEmpty else { continue }
                        onBytes()
                        let goesOn = await holdBack(
                            fetch: id, pausing: response.pausesWhileUnread, lastByte: lastByte)
                        // Readers waiting here take the bytes now; the write stores the same ones.
                        core.arrived(chunk, at: arrivedAt, fetch: id)
                        arrivedAt += Int64(chunk.count)
                        await pipe.push(chunk)
                        if !goesOn { throw CancellationError() }
                        try Task.checkCancellation()
                    }
                    return .received
                } catch {
                    return .receiveFailed(error)
                }
            }
            group.addTask {
                var offset = response.offset
                storing: while let (batch, start) = await pipe.take() {
                    var rest = batch[...]
                    offset = start
                    while !rest.isEmpty {
                        let (taken, more) = try await writer.store(Array(rest), at: offset, fetch: id)
                        offset += rest.prefix(taken).reduce(0) { $0 + Int64($1.count) }
                        rest = rest.dropFirst(taken)
                        core.inner.withLock { [offset] in $0.arriving.drop(fetch: id, before: offset) }
                        core.notifyReaders()
                        switch more {
                        case false?: break storing
                        case true?: continue
                        case nil:
                            // A new version waits for the old one's file slices before it empties the file.
                            await lender.slicesReturned()
                            try Task.checkCancellation()
                        }
                    }
                    pipe.stored()
                    // Cancelled, the receiver stops and finishes the pipe; what it received is stored first (it
                    // is paid for, and a reader may already have taken it from memory), then `take` ends.
                }
                return .stored(offset)
            }
            group.addTask {
                // The watchdog: checks a few times per timeout whether bytes still come. Cancelled, it ends
                // quietly: the storing side still stores what was received.
                let tick = UInt64(max(0.01, stallTimeout / 4) * 1_000_000_000)
                while true {
                    do { try await Task.sleep(nanoseconds: tick) } catch { return .received }
                    if LinkMonitor.now - lastByte.withLock({ $0 }) > stallTimeout {
                        throw SpoolError.timedOut
                    }
                }
            }
            // The storing side ends the body (at its end, or once the request has what it asked for); the
            // watchdog only by throwing.
            var failure: (any Error)?
            var reached = response.offset
            storing: while let outcome = try await group.next() {
                switch outcome {
                case .received: continue
                case .receiveFailed(let error): failure = error
                case .stored(let offset):
                    reached = offset
                    break storing
                }
            }
            group.cancelAll()
            if let failure { throw failure }
            return reached
        }
    }

    /// How one side of `receive` ended.
    private enum Outcome: Sendable {
        case received
        case receiveFailed(any Error)
        case stored(Int64)
    }

    /// Checks a response's version; a new one replaces the stored bytes before any of its own are written.
    private func absorb(_ response: OriginReadResponse, requested: Int64, fetch id: Int) {
        let (cancelled, changed) = inner.withLock { inner -> ([Task<Void, Never>], Bool) in
            let before = inner.state.info
            guard
                let others = inner.state.absorb(
                    response.info, servedFrom: response.offset, requested: requested, fetch: id)
            else {
                if inner.state.info != before { inner.dirty = true }
                return ([], false)
            }
            VersionReset.begin(in: &inner)
            return (others.compactMap { inner.tasks[$0] }, true)
        }
        if changed { writer.catchUp() }
        for task in cancelled { task.cancel() }
        core.notifyReaders()
    }

    func finishFetch(_ id: Int, failure: (any Error)?) {
        inner.withLock { inner in
            inner.state.finishFetch(id, failure: failure)
        }
        fetchEnded(id)
    }

    /// Forgets the task of request `id`, which the state has finished; wakes its readers.
    private func fetchEnded(_ id: Int) {
        let idle = inner.withLock { inner in
            inner.tasks[id] = nil
            // What it received and did not store will not be: readers wait for another request.
            inner.arriving.drop(fetch: id)
            return inner.isIdle
        }
        index.flushSoon()
        core.notifyReaders()
        if idle { core.becameIdle() }
    }
}
