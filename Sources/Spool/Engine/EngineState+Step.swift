import Foundation

/// What a reader does next (`step`): read stored bytes, wait for requests it joins or starts, look at another
/// process's record first, or finish; and what it records on the way.
extension EngineState {
    /// What reader `id`, which has delivered everything before `position`, does next, over a link to the
    /// origin as `link` describes it. A read step covers at most `readLimit` bytes (default
    /// `FetchPolicy.readChunkSize`).
    mutating func step(
        reader id: Int, position: Int64, link: LinkEstimate = LinkEstimate(), readLimit: Int64? = nil
    ) -> Step {
        guard let reader = readers[id] else { return .fail(CancellationError()) }
        readers[id]!.position = position
        // A look elsewhere allows the one step that follows it.
        let looked = reader.lookedElsewhere
        readers[id]!.lookedElsewhere = false
        guard let info, let end = end(of: id) else {
            // Unknown again after a new version dropped it: the failure that said so; a reader that delivered
            // bytes cannot go on with another version's, one that delivered none asks again.
            if let failure = reader.failure { return .fail(failure) }
            return .fail(reader.versionNumber == nil ? ContentInfoDropped() : SpoolError.resourceChanged)
        }
        if let delivered = reader.versionNumber, delivered != versionNumber { return .fail(SpoolError.resourceChanged) }
        if position > info.length {
            return .fail(SpoolError.rangeNotSatisfiable(requested: position, length: info.length))
        }
        if position >= end { return .finished }
        if reader.wantsAll { joinWholeReadRequests(reader: id, from: position, to: end) }
        if let present = stored.range(containing: position) {
            if reader.versionNumber == nil, isDelivering(at: present.upperBound) {
                // Its first bytes are still arriving from the origin: its client waits on the network, as
                // one that waited for a request does, and is not replaying what is cached.
                readers[id]!.mayFetch = true
            }
            let upper = min(present.upperBound, end, position + (readLimit ?? Int64(policy.readChunkSize)))
            return .read(position..<upper, versionNumber: versionNumber)
        }
        if let failure = reader.failure { return .fail(failure) }

        // Bytes another process stored since are taken rather than fetched again (a cache directory may be
        // open in two processes, an app and its extension): one look at its record before a step that would
        // start requests (`lookedElsewhere`), and the step again.
        if !looked {
            var trial = self
            if !trial.startRequests(reader: id, at: position, end: end, link: link).isEmpty { return .lookElsewhere }
        }
        let started = startRequests(reader: id, at: position, end: end, link: link)
        for request in started { emit(.start(fetch: request.id)) }
        // A player's read that needs the origin ends the requests players abandoned elsewhere on it.
        if !started.isEmpty, !reader.isPrefetch { dropAbandoned(forPlaybackReadAt: position) }
        // It may have joined a request a player abandoned, or made a paused one a playback read's.
        emit(.wakeHolds)
        return .wait
    }

    /// The requests that make sure reader `id`'s bytes from `position` arrive soon: it joins those that
    /// cover them, and new ones fill the gaps up to a read-ahead window. Returns the new ones.
    fileprivate mutating func startRequests(reader id: Int, at position: Int64, end: Int64, link: LinkEstimate)
        -> [(id: Int, range: Range<Int64>)]
    {
        guard let info, let reader = readers[id] else { return [] }
        if readers[id]!.start == nil { readers[id]!.start = position }
        let consumed = position - readers[id]!.start!
        // A pausing read before its probation counts on an open connection for its next piece (see below).
        var planned = link
        if link.pausesWhileUnread, consumed < policy.probation {
            planned.spareConnections = max(1, link.spareConnections)
        }
        var (window, piece) = policy.readAhead(afterConsuming: consumed, link: planned)
        if link.pausesWhileUnread {
            // Bodies that pause while unread: a request can ask for a read's rest as a player's does, and is held
            // back once it runs far enough ahead (`Hold.aheadOfReaders`). Past its probation a read asks for all
            // the rest. Before, it may be a seek's, left early (most end within a few hundred KiB): it asks for a
            // first request's size, then for what it consumed, the next piece a product before the current one's
            // end. It counts on an open connection for it (pieces left near their end run on and free theirs:
            // `FetchPolicy.abandonedRunsOnWithin`) rather than on a new one's handshakes: with those in the window,
            // a second piece went out with the first and ran on, or was cancelled with its connection, when the
            // player left.
            if consumed < policy.probation {
                piece = max(piece, window, consumed > 0 ? consumed : policy.firstRequestSize)
                // A product, not the one and a half pieces that keep a read of small pieces going: on a fast
                // link those are far more, and a reader that caught up with its first piece's bytes early (a
                // player reading at loopback speed) started the next one there, which a seek left wasted.
                if let product = policy.bandwidthDelayProduct(planned) { window = product }
            } else {
                piece = end - position
            }
        }
        // A read that will consume everything asks for everything it lacks at once: one request, not a ramp.
        if reader.wantsAll { (window, piece) = (max(window, end - position), max(piece, end - position)) }
        var started: [(id: Int, range: Range<Int64>)] = []
        var cursor = coverGap(at: position, end: end, reader: id, piece: piece, started: &started)
        // Keep the link busy: requests reach a window (about a bandwidth-delay product) beyond the reader,
        // so the next piece is under way before the current one ends.
        if info.acceptsRanges {
            let horizon = min(end, position + window)
            var steps = 0
            while cursor < horizon, steps < 8 {
                steps += 1
                if let present = stored.range(containing: cursor) {
                    cursor = present.upperBound
                } else {
                    cursor = coverGap(at: cursor, end: end, reader: id, piece: piece, started: &started)
                }
            }
        }
        if readers[id]!.versionNumber == nil { readers[id]!.mayFetch = true }
        return started
    }

    /// Records that reader `id` has looked at another process's record (and taken in what it stored): its
    /// next step starts the requests it still needs (see `Step.lookElsewhere`).
    mutating func lookedElsewhere(reader id: Int) {
        readers[id]?.lookedElsewhere = true
    }

    /// How many bytes from `position`, which is not stored, reader `id` may take from bytes still arriving from
    /// the origin (`ArrivingBytes`), and records that it starts there as a step would; `nil` when it may take
    /// none: it failed, it delivered another version's bytes, or it is at its end.
    mutating func arrivingReadLimit(reader id: Int, position: Int64) -> Int64? {
        guard let reader = readers[id], reader.failure == nil, let end = end(of: id), position < end else { return nil }
        if let delivered = reader.versionNumber, delivered != versionNumber { return nil }
        if reader.start == nil { readers[id]!.start = position }
        // As for stored bytes still arriving: its client waits on the network, not on a replay.
        if reader.versionNumber == nil { readers[id]!.mayFetch = true }
        return end - position
    }

    /// Records that reader `id`'s consumer has caught up: its requests start without asking again.
    mutating func consumerCaughtUp(reader id: Int) {
        readers[id]?.mayFetch = true
    }

    /// A whole read (`ReadExtent.whole`) joins the first request sized for it that runs ahead of it within its
    /// range, though it reads stored bytes behind that request and never reaches its position: the request was
    /// sent for this read and ends with it (`Fetch.outlivesOnlyUntilJoined`). A fast link once took a
    /// prefetch cancelled 2 MB into an 8 MB file to the file's end: its reader never caught up to join.
    fileprivate mutating func joinWholeReadRequests(reader id: Int, from position: Int64, to end: Int64) {
        for (fetchID, fetch) in fetches
        where fetch.outlivesOnlyUntilJoined && fetch.outlivesReaders && fetch.position >= position
            && fetch.position < end
        {
            fetches[fetchID]!.interested.insert(id)
            fetches[fetchID]!.outlivesReaders = false
            fetches[fetchID]!.abandonedAt = nil
        }
    }

    /// Makes sure a request will deliver the byte at `offset` soon: joins a request about to reach it,
    /// cuts one that would reach it late, or opens a new one. Returns the end of the request that covers it.
    fileprivate mutating func coverGap(
        at offset: Int64, end: Int64, reader: Int, piece: Int64, started: inout [(id: Int, range: Range<Int64>)]
    ) -> Int64 {
        if let (fetchID, fetch) = fetches.first(where: { $0.value.position <= offset && offset < $0.value.end }) {
            if offset - fetch.position <= policy.joinDistance {
                fetches[fetchID]!.interested.insert(reader)
                fetches[fetchID]!.abandonedAt = nil
                if fetch.outlivesOnlyUntilJoined { fetches[fetchID]!.outlivesReaders = false }
                return fetch.end
            }
            // Too far behind: it stops where this reader starts, and a new request takes over from there.
            fetches[fetchID]!.end = offset
            let id = makeID()
            fetches[id] = Fetch(position: offset, end: fetch.end, interested: fetch.interested.union([reader]))
            started.append((id, offset..<fetch.end))
            return fetch.end
        }
        let claimed = nextClaimedOffset(after: offset) ?? end
        var upper = min(end, claimed)
        if info?.acceptsRanges ?? true {
            // An origin without ranges restarts from 0 on every request, so it gets one request for the
            // whole gap instead of pieces.
            upper = min(upper, offset + piece)
        }
        let id = makeID()
        fetches[id] = Fetch(position: offset, end: upper, interested: [reader])
        started.append((id, offset..<upper))
        return upper
    }

    /// Records that reader `id` delivered bytes of `versionNumber`.
    mutating func markDelivered(reader id: Int, versionNumber delivered: Int) {
        if readers[id]?.versionNumber == nil { readers[id]?.versionNumber = delivered }
    }

    /// Records that reader `id` delivered `range` of the current version at `now`: where it is now, and a use
    /// of the blocks it read. Returns whether a request held ahead of the reader may go on now
    /// (`Hold.aheadOfReaders`): the driver wakes the holds.
    @discardableResult
    mutating func delivered(_ range: Range<Int64>, reader id: Int, at now: Date) -> Bool {
        markDelivered(reader: id, versionNumber: versionNumber)
        readers[id]?.position = range.upperBound
        blockUse.used(range, at: now)
        return releasesHold(reader: id, at: range.upperBound)
    }

    /// Records that reader `id` delivered `range` from bytes still arriving, at `now`; returns what `delivered`
    /// does.
    @discardableResult
    mutating func deliveredFromMemory(_ range: Range<Int64>, reader id: Int, at now: Date) -> Bool {
        readers[id]?.takenFromMemory.insert(range)
        return delivered(range, reader: id, at: now)
    }
}
