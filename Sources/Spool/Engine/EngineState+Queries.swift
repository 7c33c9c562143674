/// Questions the driver asks the state without changing it.
extension EngineState {
    /// The end of reader `id`'s read, within the resource.
    func end(of id: Int) -> Int64? {
        guard let info, let reader = readers[id] else { return nil }
        return min(reader.requestedEnd ?? info.length, info.length)
    }

    /// Whether request `id` runs (it was neither cancelled nor finished).
    func isRunning(fetch id: Int) -> Bool {
        fetches[id] != nil
    }

    /// Where request `id` stops storing what it receives: its end while it runs; nowhere once cancelled
    /// because its readers left (it stores everything it had received, `didStore`); `nil` once it ended or a
    /// new version dropped it.
    func storedEnd(of id: Int) -> Int64? {
        if let fetch = fetches[id] { return fetch.end }
        return orphaned[id] == versionNumber ? .max : nil
    }

    /// Whether reader `id`, which has delivered everything before `position`, must hear from its consumer
    /// before its next step: it has delivered bytes without waiting for the origin, and the step would start
    /// an origin request.
    func mustAskConsumer(reader id: Int, position: Int64, link: LinkEstimate = LinkEstimate()) -> Bool {
        guard let reader = readers[id], reader.versionNumber != nil, !reader.mayFetch else { return false }
        var trial = self
        // What the step would start once any look elsewhere is done.
        trial.lookedElsewhere(reader: id)
        guard case .wait = trial.step(reader: id, position: position, link: link) else { return false }
        // Joining a request a player abandoned sets it going again: an origin request as much as a new one.
        return trial.actions.dropFirst(actions.count).contains { if case .start = $0 { true } else { false } }
            || fetches.contains { $0.value.abandonedAt != nil && trial.fetches[$0.key]?.abandonedAt == nil }
    }

    /// Whether reader `id`, at `position`, waits for playback reads to stop waiting before its step: it reads
    /// ahead of playback and the byte there is not stored, so its step may start or join origin requests that
    /// would take the link a player waits on. Stored bytes it reads at once: they cost no link.
    func givesWayToPlayback(reader id: Int, at position: Int64) -> Bool {
        readers[id]?.isPrefetch == true && !stored.contains(position)
    }

    /// Whether request `id` may stop receiving while playback elsewhere needs the link: every reader waiting
    /// for it reads ahead of playback. A request nobody reads yet (the first, which brings the content
    /// information) never pauses.
    func mayPause(fetch id: Int) -> Bool {
        guard let fetch = fetches[id], !fetch.interested.isEmpty else { return false }
        return fetch.interested.allSatisfy { readers[$0]?.isPrefetch == true }
    }

    /// Whether a request a reader waits for (not one a player abandoned) is delivering the byte at `offset`
    /// next.
    func isDelivering(at offset: Int64) -> Bool {
        fetches.values.contains { $0.position == offset && $0.position < $0.end && $0.abandonedAt == nil }
    }

    /// Whether request `id`'s bytes up to `reach` enter the block its range ends within, when that block goes on
    /// beyond its end with bytes not stored here: another process may have stored those (two processes filling
    /// two halves of a resource), and its record is to be read before this one writes there (`IndexWriter`).
    /// Taken in first, the two parts make a complete block; otherwise a partial block's two parts have no
    /// checksum that covers both, and the records' merge keeps only one.
    func entersSharedLastBlock(fetch id: Int, reaching reach: Int64) -> Bool {
        guard let fetch = fetches[id], let info, fetch.end < info.length, fetch.end > 0 else { return false }
        let block = BlockLayout.range(of: (fetch.end - 1) / BlockLayout.blockSize, length: info.length)
        guard fetch.end < block.upperBound, reach > block.lowerBound, !stored.contains(fetch.end) else { return false }
        // The next piece of this engine's own fills it.
        return !fetches.values.contains { $0.position <= fetch.end && fetch.end < $0.end }
    }

    /// When request `id` was abandoned by its last reader, while no reader has joined it since.
    func abandonedSince(fetch id: Int) -> Double? {
        guard let fetch = fetches[id], fetch.interested.isEmpty else { return nil }
        return fetch.abandonedAt
    }

    /// The range request `id` still has to deliver, or `nil` once it is finished or cancelled.
    func remaining(of id: Int) -> Range<Int64>? {
        guard let fetch = fetches[id], fetch.position < fetch.end else { return nil }
        return fetch.position..<fetch.end
    }

    /// The parts of `range`, just received by request `id`, that are not stored yet and lie within the
    /// resource; `nil` when the request must deliver nothing: a new version dropped it. A request cancelled
    /// because its readers left still stores what it had received.
    func unstoredParts(of range: Range<Int64>, fetch id: Int) -> [Range<Int64>]? {
        guard fetches[id] != nil || orphaned[id] == versionNumber, let info else { return nil }
        return stored.gaps(in: range.clamped(to: 0..<info.length))
    }

    /// The first offset after `offset` that is stored or that a running request will deliver.
    func nextClaimedOffset(after offset: Int64) -> Int64? {
        let storedNext = stored.firstOffset(atOrAfter: offset)
        let fetchNext = fetches.values.filter { $0.position > offset && $0.position < $0.end }.map(\.position).min()
        switch (storedNext, fetchNext) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }
}
