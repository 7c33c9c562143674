import Foundation

/// The rest of a read straight from the origin, uncached, for when the disk cannot take its bytes
/// (`ByteStream`): with what the engine's requests have, so that a failing disk does not make a read fragile.
/// A try's response head and body are timed by a `StallWatch`; a try that fails is sent again from the first
/// byte not delivered, as `RetryBudget` decides; every response's version is checked against the bytes
/// delivered so far.
///
/// A try runs in a task of its own (the watch cancels it when the origin goes silent) and hands its body over
/// through a `ChunkPipe`, so at most `FetchPolicy.readChunkSize` waits for a slow consumer. Used by one
/// iterating task, one `next()` at a time.
final class DirectRead: @unchecked Sendable {
    private let url: URL
    private let origin: any Origin
    private let info: ContentInfo
    private let policy: FetchPolicy
    private let clock: any SpoolClock
    private let end: Int64
    /// The first byte not delivered yet.
    private var position: Int64
    private var retries: RetryBudget
    private var running: Try?
    /// Chunks taken from the running try and not delivered yet.
    private var ready: [Data] = []

    /// One try: its task, the pipe its body comes through, and how it failed.
    private struct Try {
        let task: Task<Void, Never>
        let pipe: ChunkPipe
        let failure: LockedBox<(any Error)?>
        /// Whether bytes came through it.
        var progressed = false
    }

    /// A read of `position..<end` of the resource at `url`, whose version is `info`.
    init(
        url: URL, origin: any Origin, info: ContentInfo, from position: Int64, to end: Int64, policy: FetchPolicy,
        clock: any SpoolClock
    ) {
        self.url = url
        self.origin = origin
        self.info = info
        self.policy = policy
        self.clock = clock
        self.position = position
        self.end = end
        retries = RetryBudget(startedAt: clock.uptime)
    }

    deinit {
        cancel()
    }

    /// The next chunk, or `nil` after the last byte; throws what ended the read (a failure the policy does not
    /// retry, a new version, cancellation).
    func next() async throws -> Data? {
        while true {
            if !ready.isEmpty {
                let chunk = ready.removeFirst()
                position += Int64(chunk.count)
                return chunk
            }
            guard position < end else {
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
                ready = batch.filter { !$0.isEmpty }
                continue
            }
            // The try ended (or this task was cancelled while it waited).
            running = nil
            attempt.task.cancel()
            try Task.checkCancellation()
            guard position < end else { return nil }
            let error: any Error =
                attempt.failure.withLock { $0 }
                ?? SpoolError.truncatedBody(expected: end - position, received: 0)
            if case SpoolError.resourceChanged = error { throw error }
            guard
                let wait = retries.failed(error, progressed: attempt.progressed, at: clock.uptime, policy: policy)
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

    /// Sends a try for the bytes from `position`, in a task the watch cancels when the origin goes silent.
    private func startTry() -> Try {
        let (url, origin, info, end, from) = (url, origin, info, end, position)
        let pipe = ChunkPipe(start: from, limit: policy.readChunkSize)
        let watch = StallWatch(timeout: policy.stallTimeout, clock: clock)
        let failure = LockedBox<(any Error)?>(nil, rank: .leaf)
        let task = Task {
            defer { pipe.finish() }
            do {
                watch.arm()
                let response = try await origin.read(
                    OriginReadRequest(url: url, range: from..<end, validator: info.rangeValidator))
                watch.touch()
                guard !response.info.isDifferentVersion(from: info) else { throw SpoolError.resourceChanged }
                guard response.offset <= from else {
                    throw SpoolError.invalidResponse("the body starts at \(response.offset), not \(from)")
                }
                var offset = response.offset
                for try await chunk in response.body {
                    watch.touch()
                    let chunkStart = offset
                    offset += Int64(chunk.count)
                    // An origin that ignored the range starts before the position: skip to it.
                    let lower = chunk.startIndex + Int(max(0, from - chunkStart))
                    let upper = chunk.startIndex + Int(min(Int64(chunk.count), end - chunkStart))
                    if lower < upper {
                        // Waiting for a slow consumer is not the origin's silence.
                        watch.disarm()
                        await pipe.push(chunk[lower..<upper])
                        watch.arm()
                    }
                    if offset >= end { break }
                    try Task.checkCancellation()
                }
                watch.disarm()
            } catch {
                watch.disarm()
                let explained = watch.explained(error)
                failure.withLock { $0 = explained }
            }
        }
        watch.watch(task)
        return Try(task: task, pipe: pipe, failure: failure)
    }
}
