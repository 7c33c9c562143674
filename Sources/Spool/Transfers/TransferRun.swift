import Foundation

/// One run of a transfer job: stores what of its span is missing, through the cache at prefetch priority
/// (the engine pauses its requests while playback needs the link, `FetchRunner.holdBack`, so nothing received
/// is lost), one gap after another, each in one request for all of it (`ReadExtent.whole`). What it stored
/// stays whether it ends, fails or is cancelled (a suspension or the last subscriber leaving); the next run
/// goes on from the first missing byte.
///
/// With a disk reserve it looks at the free space every `diskCheckStep` bytes (`checkDisk`), so that it stops
/// before the disk fills rather than at the next change of the conditions: the scheduler suspends it.
struct TransferRun: Sendable {
    let resource: Resource
    let span: TransferSpan
    /// Why: what it stores is counted as preloaded or downloaded (`FetchedAhead`) for playback reports.
    let purpose: TransferPurpose
    let cache: SpoolCache
    /// Told, every `progressStep`, how many bytes of the span are stored, and of how many.
    let progress: @Sendable (_ stored: Int64, _ total: Int64) -> Void
    /// Looks at the free space and tells the schedule when it is below the reserve; `nil`: no reserve.
    let checkDisk: (@Sendable () async -> Void)?

    /// The most passes over the span's gaps: a pass ends with them stored unless another process or an
    /// eviction took some back meanwhile.
    static let maximumPasses = 3
    /// How often a run reports its progress: every 256 KiB, a progress bar's step for an item of a few MB, not
    /// an event per chunk.
    static let progressStep: Int64 = 256 * 1024
    /// How often a run with a disk reserve looks at the free space: every 1 MiB, so it stops at most that
    /// much (and what is in flight) past the reserve, at the cost of a `statfs` per MiB.
    static let diskCheckStep: Int64 = 1 << 20

    /// Stores the span; returns its bytes (clipped to the resource's length), or what ended the run.
    func run() async -> Result<Range<Int64>, any Error> {
        do {
            // Known: from memory or the index. Unknown: the first origin request, which brings the span's first
            // bytes (all of them, when it can) and caches them.
            // The session is not read from: it brings the content information (and the open entry, so that
            // what is stored is asked of memory), and the gaps are read one by one.
            let session = try await cache.openRead(
                resource, from: span.start, length: span.end.map { $0 - span.start }, purpose: .prefetch(.whole),
                ahead: purpose)
            guard span.start <= session.info.length else {
                throw SpoolError.rangeNotSatisfiable(requested: span.start, length: session.info.length)
            }
            let range = session.range
            let key = cache.key(for: resource)
            for pass in 0..<Self.maximumPasses {
                // What is stored now, the first request's bytes included (the session's `storedBefore` is from
                // before it: reading those again would double a cold download's disk reads).
                let stored = await cache.cachedRanges(for: resource)
                if pass == 0 {
                    countFetched(stored.intersection(range), before: session.storedBefore, key: key, session: session)
                }
                let gaps = stored.gaps(in: range)
                guard !gaps.isEmpty else { return .success(range) }
                let total = range.upperBound - range.lowerBound
                var done = gaps.reduce(total) { $0 - ($1.upperBound - $1.lowerBound) }
                progress(done, total)
                for gap in gaps {
                    try Task.checkCancellation()
                    done += try await read(gap, key: key, storedBefore: done, total: total)
                }
                progress(done, total)
            }
            // Another process or an eviction keeps taking bytes back: the caller looks at what is stored.
            return .success(range)
        } catch {
            return .failure(error)
        }
    }

    /// Counts as this run's what of `ranges` was not in `before`: what the session's first request brought,
    /// which the run does not read (its gaps are read); the session takes it as read, so that a player's read
    /// of it later is a hit on what this run fetched, as for the bytes it reads.
    private func countFetched(_ ranges: [Range<Int64>], before: ByteRangeSet, key: String, session: ReadSession) {
        for range in ranges {
            for fetched in before.gaps(in: range) {
                cache.playback.fetchedAhead.fetched(key: key, range: fetched, purpose: purpose)
                session.takeUnread(fetched)
            }
        }
    }

    /// Reads `gap` of the entry `key` into the cache; returns its bytes.
    private func read(_ gap: Range<Int64>, key: String, storedBefore: Int64, total: Int64) async throws -> Int64 {
        let stream = cache.read(
            resource, from: gap.lowerBound, length: gap.upperBound - gap.lowerBound, purpose: .prefetch(.whole),
            ahead: purpose)
        var (received, reported, checked) = (Int64(0), Int64(0), Int64(0))
        // The gap was missing: what the read received, this run fetched (however it ends).
        defer {
            cache.playback.fetchedAhead.fetched(
                key: key, range: gap.lowerBound..<gap.lowerBound + received, purpose: purpose)
        }
        for try await chunk in stream {
            received += Int64(chunk.count)
            if received - reported >= Self.progressStep {
                reported = received
                progress(storedBefore + received, total)
            }
            if let checkDisk, received - checked >= Self.diskCheckStep {
                checked = received
                await checkDisk()
            }
        }
        return received
    }
}
