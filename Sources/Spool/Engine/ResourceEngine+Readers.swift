import Foundation

/// Readers: registering them, and stepping each through the state machine: stored bytes come as a slice
/// (`SliceLender`) or a read (`StoredReader`), missing ones start requests (`FetchRunner`) and are waited for.
extension ResourceEngine {
    /// Marks the fresh bytes of `range` taken without a read (`ReadSession.takeUnread`).
    func takeFresh(_ range: Range<Int64>) {
        locked.withLock { _ = $0.state.fresh.take(range) }
    }

    /// Registers a reader of the bytes before `requestedEnd` (`nil`: to the end), for `purpose`.
    func addReader(requestedEnd: Int64?, purpose: ReadPurpose) -> Int {
        locked.withLock {
            $0.state.addReader(
                requestedEnd: requestedEnd, extent: purpose.extent, isPrefetch: purpose.priority == .prefetch)
        }
    }

    /// Unregisters a reader and cancels the requests only it needed, or, for a player's, abandons them for a
    /// read to join (`FetchPolicy.abandonedRequestGrace`); their bytes so far stay stored, and the index
    /// learns of them.
    func removeReader(_ id: Int) {
        let now = environment.clock.date
        let abandonAt = policy.abandonedRequestGrace > 0 ? environment.clock.uptime : nil
        let runsOnWithin = abandonAt == nil ? 0 : policy.abandonedRunsOnWithin(context.linkEstimate())
        fetcher.perform { entry in
            // A read is a use: the entry's last access moves, for least-recently-used eviction.
            entry.state.accessed(at: now)
            entry.state.removeReader(id, abandonAt: abandonAt, runsOnWithin: runsOnWithin)
        }
    }

    /// The next bytes for reader `id` at `position`, as soon as they have arrived (a player's) or are on
    /// disk; `nil` at the end, once the bytes taken as they arrived are stored when `purpose` awaits that. A
    /// prefetch read starts no origin request while the playback gate says a player waits. A reader that has
    /// delivered bytes from disk only awaits `consumer` (when given) before its first origin request. With
    /// `revoke` given, stored bytes this process has checked come as a `FileSlice` (up to
    /// `FetchPolicy.fileSliceSize` at once) where the cache is not encrypted; `revoke` is how the engine asks
    /// for the slice back early. `limit` bounds the part (a look at a resource's first bytes).
    func nextPart(
        reader id: Int, position: Int64, purpose: ReadPurpose, consumer: (@Sendable () async throws -> Void)? = nil,
        playback: PlaybackRequest? = nil, revoke: (@Sendable () -> Void)? = nil, limit: Int? = nil
    ) async throws -> StreamPart? {
        // Reads ahead of playback serve nobody yet; the cache's own reads serve nobody at all.
        let serves = purpose.servesPlayer
        let playback = serves ? playback : nil
        // When the read began to wait for the origin: told to the playback report however the call ends.
        var waitBegan: TimeInterval?
        defer { if let waitBegan { playback?.waited(from: waitBegan, to: environment.clock.uptime) } }
        func served(_ range: Range<Int64>, fresh: Int64) {
            countServed(range, fresh: fresh)
            playback?.served(key: key, range: range, fresh: fresh)
        }
        let (priority, countsServed, gate) = (purpose.priority, purpose.countsServed, environment.gate)
        let slicing = revoke != nil && environment.codec.isIdentity && limit == nil
        let readLimit = Int64(min(limit ?? .max, slicing ? policy.fileSliceSize : policy.readChunkSize))
        while true {
            try Task.checkCancellation()
            let link = context.linkEstimate()
            if locked.withLock({ $0.state.givesWayToPlayback(reader: id, at: position) }) {
                await gate.waitForPlayback()
                try Task.checkCancellation()
            }
            if let consumer, locked.withLock({ $0.state.mustAskConsumer(reader: id, position: position, link: link) }) {
                try await consumer()
                locked.withLock { $0.state.consumerCaughtUp(reader: id) }
                continue
            }
            // Bytes that have arrived from the origin and are still being written: from memory, now, for a
            // player (a read ahead of playback is there to store them, and waits for that).
            // The count of changes is read with the look at arriving bytes: whatever arrives after the look
            // changes it, so the wait below cannot sleep through bytes that came between the look and the step.
            let now = environment.clock.date
            let (seen, arrived) = locked.withLock { entry in
                let taken =
                    priority == .playback
                    ? entry.takeArriving(reader: id, at: position, limit: readLimit, handOut: countsServed, now: now)
                    : nil
                return (entry.readerWakeups, taken)
            }
            if let (data, fresh, wakesHolds) = arrived {
                if wakesHolds { context.wakeHolds() }
                if serves { served(position..<position + Int64(data.count), fresh: fresh) }
                return .bytes(data)
            }
            let step = fetcher.perform {
                $0.state.step(reader: id, position: position, link: link, readLimit: readLimit)
            }
            switch step {
            case .lookElsewhere:
                // Another process may have stored these bytes since: take them rather than fetch them again.
                _ = try await BlockingIO.run { [index] in index.adoptStoredElsewhere() }
                locked.withLock { $0.state.lookedElsewhere(reader: id) }
                continue
            case .finished:
                // The end waits for the bytes it took from memory to be on disk: the player has them all
                // already, and whoever sees the read end finds them cached.
                // A wake-up says only that something changed: look again until they are, or the task ends.
                while purpose.awaitsStoring, !Task.isCancelled, !locked.withLock({ $0.memoryReadsSettled(reader: id) })
                {
                    await context.suspend(id: id, in: \.waiters) { $0.memoryReadsSettled(reader: id) }
                }
                return nil
            case .fail(let error):
                throw error
            case .read(let range, let versionNumber):
                // A slice lent, or the plan of a read that happens off the lock.
                let now = environment.clock.date
                var wakesHolds = false
                let prepared = locked.withLock { entry -> Result<PreparedRead?, any Error> in
                    guard entry.state.versionNumber == versionNumber, entry.state.stored.contains(range) else {
                        return .success(nil)
                    }
                    return Result {
                        if let revoke, slicing, let reserved = try lender.reserve(range, revoke: revoke, in: &entry) {
                            wakesHolds = entry.delivered(reserved.range, to: id, at: now)
                            return .lent(reserved)
                        }
                        let size = min(readLimit, Int64(policy.readChunkSize))
                        let read = range.lowerBound..<min(range.upperBound, range.lowerBound + size)
                        let plan = try reader.plan(read, in: &entry)
                        // The cache's own reads (`countsServed` false) leave the bytes fresh for a player.
                        return .planned(plan, fresh: countsServed ? entry.state.fresh.take(read) : ByteRangeSet())
                    }
                }
                if wakesHolds { context.wakeHolds() }
                if case .failure(let error) = prepared, error is LockedEntry.FileNotOpen {
                    try await context.openFile()
                    continue
                }
                switch try prepared.get() {
                case nil: continue
                case .lent(let reserved)?:
                    let part = StreamPart.file(try lender.complete(reserved))
                    if serves { served(reserved.range, fresh: reserved.fresh.byteCount) }
                    return part
                case .planned(let plan, let fresh)?:
                    guard let data = try await reader.perform(plan, for: id) else {
                        locked.withLock { $0.state.fresh.giveBack(fresh) }
                        continue
                    }
                    if serves { served(position..<position + Int64(data.count), fresh: fresh.byteCount) }
                    return .bytes(data)
                }
            case .wait:
                if waitBegan == nil, playback != nil { waitBegan = environment.clock.uptime }
                let token =
                    priority == .playback
                    ? gate.playbackWaits(isStart: locked.withLock { $0.state.readers[id]?.versionNumber == nil }) : nil
                await waitForChange(reader: id, seen: seen)
                if let token { gate.playbackResumed(token) }
            }
        }
    }

    /// Counts the bytes of `range` a player received as served, `fresh` of them from the origin (see
    /// `EngineState.fresh`).
    func countServed(_ range: Range<Int64>, fresh: Int64) {
        guard !range.isEmpty else { return }
        environment.statistics.served(
            key: key, range: range,
            fromCache: range.upperBound - range.lowerBound - min(fresh, range.upperBound - range.lowerBound))
    }

    /// How a reader's next stored bytes come: a slice lent, or a read planned.
    private enum PreparedRead {
        case lent(SliceLender.Reserved)
        case planned(StoredReader.Plan, fresh: ByteRangeSet)
    }

    private func waitForChange(reader id: Int, seen: UInt64) async {
        await context.suspend(id: id, in: \.waiters) { $0.readerWakeups != seen }
    }
}
