import Foundation

/// A read straight from the origin, past the cache, as a mode of the engine's fetch: its tries are the fetch
/// runner's (`FetchRunner.watchedTry` and `send`: the same stall watch, link monitor and request accounting
/// as every stored request), and only where the body goes differs: to the one reader, not to the disk. For
/// the rest of a read when the disk cannot take its bytes (`ByteStream`), and for a live playlist's reload,
/// which must not wait behind the copy being served.
///
/// A try that fails is sent again from the first byte not delivered, as `RetryBudget` decides; every
/// response's version is checked against the first one's. A try's body comes through a `ChunkPipe`, so at
/// most `FetchPolicy.readChunkSize` waits for a slow consumer (the origin is held up meanwhile, and that wait
/// is neither a stall nor the link's rate). Used by one iterating task, one `next()` at a time.
final class DirectRead: @unchecked Sendable {
    private let fetcher: FetchRunner
    /// The version read: given, or the first response's.
    private(set) var info: ContentInfo?
    /// Where the read ends: given, or the resource's end once known.
    private var end: Int64?
    /// The first byte not delivered yet.
    private var position: Int64
    private var retries: RetryBudget
    private var running: Try?
    /// Chunks taken from the running try and not delivered yet.
    private var ready: [Data] = []

    /// One try: its task, the pipe its body comes through, the version it found, and how it failed.
    private struct Try {
        let task: Task<Void, Never>
        let pipe: ChunkPipe
        let outcome: LockedBox<(info: ContentInfo?, failure: (any Error)?)>
        /// Whether bytes came through it.
        var progressed = false
    }

    /// A read of `range` (to the resource's end when `nil` is its upper bound) of the resource `fetcher`
    /// fetches, whose version is `info` (`nil`: whatever the origin answers first).
    init(fetcher: FetchRunner, info: ContentInfo?, from position: Int64, to end: Int64?) {
        self.fetcher = fetcher
        self.info = info
        self.position = position
        self.end = end ?? info?.length
        retries = RetryBudget(startedAt: fetcher.environment.clock.uptime)
    }

    deinit {
        cancel()
    }

    /// The next chunk, or `nil` after the last byte; throws what ended the read (a failure the policy does not
    /// retry, a new version, cancellation).
    func next() async throws -> Data? {
        let clock = fetcher.environment.clock
        while true {
            if !ready.isEmpty {
                let chunk = ready.removeFirst()
                position += Int64(chunk.count)
                return chunk
            }
            if let end, position >= end {
                cancel()
                return nil
            }
            try Task.checkCancellation()
            var attempt = running ?? startTry()
            running = attempt
            if let (batch, _) = await attempt.pipe.take() {
                attempt.pipe.stored()
                attempt.progressed = true
                running = attempt
                if info == nil, let found = attempt.outcome.withLock({ $0.info }) {
                    info = found
                    end = end.map { min($0, found.length) } ?? found.length
                }
                ready = batch.filter { !$0.isEmpty }
                continue
            }
            // The try ended (or this task was cancelled while it waited).
            running = nil
            attempt.task.cancel()
            try Task.checkCancellation()
            let (found, failure) = attempt.outcome.withLock { ($0.info, $0.failure) }
            if info == nil, let found {
                info = found
                end = end.map { min($0, found.length) } ?? found.length
            }
            if let end, position >= end { return nil }
            let error: any Error =
                failure ?? SpoolError.truncatedBody(expected: (end ?? position) - position, received: 0)
            if case SpoolError.resourceChanged = error { throw error }
            guard
                let wait = retries.failed(
                    error, progressed: attempt.progressed, at: clock.uptime, policy: fetcher.policy)
            else { throw error }
            try await clock.sleep(until: clock.uptime + wait)
        }
    }

    /// Stops the running try, if any.
    func cancel() {
        running?.task.cancel()
        running?.pipe.finish()
        running = nil
    }

    /// Sends a try for the bytes from `position` through the fetch runner, in a task its stall watch cancels
    /// when the origin goes silent.
    private func startTry() -> Try {
        let (fetcher, known, from) = (fetcher, info, position)
        let end = end ?? .max
        let (url, link, clock) = (fetcher.url, fetcher.environment.link, fetcher.environment.clock)
        let pipe = ChunkPipe(start: from, limit: fetcher.policy.readChunkSize)
        let outcome = LockedBox<(info: ContentInfo?, failure: (any Error)?)>((nil, nil), rank: .leaf)
        let task = fetcher.watchedTry(
            after: 0, ifCancelledWaiting: { pipe.finish() },
            body: { watch in
                defer { pipe.finish() }
                var sending = false
                do {
                    var known = known
                    if known == nil, !fetcher.origin.canReadBeforeContentInfo {
                        // This origin reads only within a length it has told.
                        watch.arm()
                        let found = try await fetcher.origin.contentInfo(for: url)
                        watch.touch()
                        outcome.withLock { $0.info = found }
                        known = found
                    }
                    let upper = min(end, known?.length ?? end)
                    guard from < upper else { return watch.disarm() }
                    sending = true
                    let (response, sentAt) = try await fetcher.send(
                        OriginReadRequest(
                            url: url, range: from..<upper, validator: known?.rangeValidator,
                            clientData: fetcher.context.clientData(forPlayer: true, mimeType: known?.mimeType)),
                        watch: watch)
                    outcome.withLock { $0.info = response.info }
                    if let known, response.info.isDifferentVersion(from: known) { throw SpoolError.resourceChanged }
                    guard response.offset <= from else {
                        throw SpoolError.invalidResponse("the body starts at \(response.offset), not \(from)")
                    }
                    let last = min(end, response.info.length)
                    var offset = response.offset
                    link.bodyStarted(url, at: clock.uptime)
                    defer { link.bodyEnded(url, at: clock.uptime) }
                    for try await chunk in response.body {
                        watch.touch()
                        link.received(chunk.count, from: url, at: clock.uptime)
                        fetcher.environment.statistics.fetched(chunk.count)
                        let chunkStart = offset
                        offset += Int64(chunk.count)
                        // An origin that ignored the range starts before the position: skip to it.
                        let lower = chunk.startIndex + Int(max(0, from - chunkStart))
                        let upper = chunk.startIndex + Int(max(0, min(Int64(chunk.count), last - chunkStart)))
                        if lower < upper {
                            // Waiting for a slow consumer is neither the origin's silence nor the link's rate.
                            watch.disarm()
                            link.bodyPaused(url, at: clock.uptime)
                            await pipe.push(chunk[lower..<upper])
                            link.bodyResumed(url, at: clock.uptime)
                            watch.arm()
                        }
                        if offset >= last { break }
                        try Task.checkCancellation()
                    }
                    watch.disarm()
                    link.delivered(offset - response.offset, from: url, after: clock.uptime - sentAt)
                    // A body read to its end leaves its connection open for the next request.
                    let expected = response.offset == from ? last : response.info.length
                    link.requestEnded(url, reusable: offset >= expected)
                    sending = false
                } catch {
                    watch.disarm()
                    if sending { link.requestEnded(url, reusable: false) }
                    let explained = watch.explained(error)
                    outcome.withLock { $0.failure = explained }
                }
            })
        return Try(task: task, pipe: pipe, outcome: outcome)
    }
}
