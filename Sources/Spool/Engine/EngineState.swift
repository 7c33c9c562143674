import Foundation

/// The decisions of one resource's engine, as a value: which bytes are stored, which origin requests run and
/// who waits for them. It performs no I/O; `ResourceEngine` carries out what it returns.
struct EngineState {
    let policy: FetchPolicy
    private(set) var info: ContentInfo? {
        didSet { if info != oldValue { record.changed() } }
    }
    /// The bytes on disk, as the driver reports them (`gained`, `lost`).
    private(set) var stored: ByteRangeSet {
        didSet { record.changed() }
    }
    /// When the index record is written and what it says besides the bytes. Any change of the content
    /// information or the stored bytes makes it lag; everything else changes it through `+Record`'s events.
    var record: RecordSchedule
    /// What the last version change still owes on disk (`+Reset`); `nil` when nothing. Set here, by every
    /// version change; its steps are recorded through `+Reset`'s events.
    var reset: ResetProgress?
    /// The number of the resource's version the stored bytes and the requests belong to, counted in this
    /// engine from 0: it goes up whenever the resource changed and every stored byte was dropped. Reads and
    /// writes planned for one version are of no use to the next.
    private(set) var versionNumber = 0
    private(set) var fetches: [Int: Fetch] = [:]
    private(set) var readers: [Int: Reader] = [:]
    /// Requests cancelled because their last reader left, with the version they were fetching, until their
    /// task ends: a chunk they had already received is still stored (it is paid for), unless a new version
    /// came meanwhile.
    private(set) var orphaned: [Int: Int] = [:]
    /// The search for the content information while it is unknown (`+Discovery`).
    var discovery = DiscoveryProgress()
    private var nextID = 1

    init(
        policy: FetchPolicy, info: ContentInfo?, stored: ByteRangeSet, created: Date = .distantPast
    ) {
        self.policy = policy
        record = RecordSchedule(created: created)
        self.info = info
        self.stored = stored
    }

    mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    mutating func addReader(requestedEnd: Int64?, extent: ReadExtent = .mayStopEarly, isPrefetch: Bool = false)
        -> Int
    {
        let id = makeID()
        readers[id] = Reader(requestedEnd: requestedEnd, wantsAll: extent == .whole, isPrefetch: isPrefetch)
        return id
    }

    /// Removes a reader; returns the requests nobody needs any more, to cancel. With `now` given, those a
    /// playback reader leaves are abandoned instead, for a reader to join, until the driver expires them
    /// (see `FetchPolicy.abandonedRequestGrace`); reads ahead of playback (a preload left by a swipe) cancel.
    mutating func removeReader(_ id: Int, abandonAt now: Double? = nil) -> [Int] {
        let abandons = now != nil && readers[id]?.isPrefetch == false
        readers[id] = nil
        var orphans: [Int] = []
        for (fetchID, var fetch) in fetches where fetch.interested.contains(id) {
            fetch.interested.remove(id)
            if fetch.interested.isEmpty, !fetch.outlivesReaders {
                if abandons, let now, fetch.position < fetch.end {
                    fetch.abandonedAt = now
                } else {
                    orphans.append(fetchID)
                }
            }
            fetches[fetchID] = fetch
        }
        for fetchID in orphans { cancelUnneeded(fetchID) }
        return orphans
    }

    /// Ends request `id`, which no reader waits for, if it is still abandoned; returns whether it did. The
    /// bytes it received meanwhile are still stored (see `unstoredParts`).
    @discardableResult
    mutating func expireAbandoned(fetch id: Int) -> Bool {
        guard abandonedSince(fetch: id) != nil else { return false }
        cancelUnneeded(id)
        return true
    }

    private mutating func cancelUnneeded(_ id: Int) {
        fetches[id] = nil
        orphaned[id] = versionNumber
    }

    /// What reader `id`, which has delivered everything before `position`, does next, over a link to the
    /// origin as `link` describes it. A read step covers at most `readLimit` bytes (default
    /// `FetchPolicy.readChunkSize`).
    mutating func step(
        reader id: Int, position: Int64, link: LinkEstimate = LinkEstimate(), readLimit: Int64? = nil
    ) -> Step {
        guard let reader = readers[id] else { return .fail(CancellationError()) }
        // A look elsewhere allows the one step that follows it.
        let looked = reader.lookedElsewhere
        readers[id]!.lookedElsewhere = false
        guard let info, let end = end(of: id) else {
            // Unknown again after a new version dropped it: the failure that said so.
            return .fail(reader.failure ?? SpoolError.invalidResponse("no content information"))
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
        return .wait(start: startRequests(reader: id, at: position, end: end, link: link))
    }

    /// The requests that make sure reader `id`'s bytes from `position` arrive soon: it joins those that
    /// cover them, and new ones fill the gaps up to a read-ahead window. Returns the new ones.
    private mutating func startRequests(reader id: Int, at position: Int64, end: Int64, link: LinkEstimate)
        -> [(id: Int, range: Range<Int64>)]
    {
        guard let info, let reader = readers[id] else { return [] }
        if readers[id]!.start == nil { readers[id]!.start = position }
        var (window, piece) = policy.readAhead(afterConsuming: position - readers[id]!.start!, link: link)
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
    private mutating func joinWholeReadRequests(reader id: Int, from position: Int64, to end: Int64) {
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
    private mutating func coverGap(
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

    // MARK: Requests

    /// The response to a request sent before the content information was known (`requested`) brings that
    /// information: records it, and the request as running from where its body starts, for readers to join
    /// (none waits on it yet). It runs on if they leave, unless it was sized for a whole read and one joined. Returns the request's id, and the requests to cancel when the response shows a
    /// new version.
    mutating func openDiscovered(
        _ answered: ContentInfo, servedFrom offset: Int64, requested: Range<Int64>
    ) -> (id: Int, cancelled: [Int]) {
        let wholeRead = discovery.running?.extent == .whole
        discovery.running = nil
        let id = makeID()
        fetches[id] = Fetch(
            position: offset, end: max(offset, requested.upperBound), interested: [], outlivesReaders: true,
            outlivesOnlyUntilJoined: wholeRead)
        let cancelled = absorb(answered, servedFrom: offset, requested: requested.lowerBound, fetch: id) ?? []
        if let info, var fetch = fetches[id] {
            // An origin that ignored the range sends the whole body: take all of it, it will not be asked twice.
            fetch.end = info.acceptsRanges ? min(fetch.end, info.length) : info.length
            fetches[id] = fetch
        }
        return (id, cancelled)
    }

    /// Takes in content information the origin gave outside any running request (its own call, for an origin
    /// that cannot read before it is known); returns whether the state changed. Once known, it changes only
    /// with a response (`absorb`).
    mutating func learn(_ discovered: ContentInfo) -> Bool {
        guard info == nil else { return false }
        info = discovered
        return true
    }

    /// Takes in the content information of a response to request `id`, whose body starts at `offset` though
    /// `requested` was asked for. A new version drops every stored byte and every other request: returns
    /// those requests, to cancel, or `nil` when the version is the known one.
    mutating func absorb(_ answered: ContentInfo, servedFrom offset: Int64, requested: Int64, fetch id: Int) -> [Int]? {
        var answered = answered
        if offset < requested { answered.acceptsRanges = false }
        guard let known = info, answered.isDifferentVersion(from: known) else {
            info = info?.completed(by: answered) ?? answered
            return nil
        }
        let others = fetches.keys.filter { $0 != id }
        for other in others { fetches[other] = nil }
        stored.removeAll()
        versionNumber += 1
        reset = ResetProgress()
        info = answered
        if let fetch = fetches[id], fetch.end > answered.length { fetches[id]!.end = answered.length }
        return others
    }

    /// Records that the bytes of `range` received by request `id` are on disk. Returns whether the request
    /// still has bytes to deliver; one cancelled because its readers left stores the rest of what it had
    /// received (a reader may have taken those bytes from memory already) until its task ends.
    mutating func didStore(_ range: Range<Int64>, fetch id: Int) -> Bool {
        guard let info else { return false }
        stored.insert(range.clamped(to: 0..<info.length))
        guard var fetch = fetches[id] else { return orphaned[id] == versionNumber }
        if range.lowerBound <= fetch.position { fetch.position = max(fetch.position, range.upperBound) }
        fetches[id] = fetch
        return fetch.position < fetch.end
    }

    /// Records bytes that reached the disk outside `didStore`: blocks written before a write failed, or
    /// another process's claims merged in.
    mutating func gained(_ ranges: ByteRangeSet) {
        guard let info else { return }
        for range in ranges.ranges {
            let clamped = range.clamped(to: 0..<info.length)
            // Only a change makes the record lag.
            if !stored.gaps(in: clamped).isEmpty { stored.insert(clamped) }
        }
    }

    /// Records bytes no longer on disk (found damaged, or given up for eviction): readers that need them
    /// fetch them again.
    mutating func lost(_ ranges: [Range<Int64>]) {
        for range in ranges where !stored.intersection(range).isEmpty { stored.remove(range) }
    }

    /// Records that request `id` started running at `now`: silence is counted from there until bytes come.
    mutating func fetchStarted(_ id: Int, at now: Double) {
        fetches[id]?.retries.restart(at: now)
    }

    /// Decides what follows the failure of request `id` with `error` at `now`: `progressed` says whether bytes
    /// arrived since it was last sent, `cancelled` whether its task was cancelled. A request that ends here
    /// is finished (see `finishFetch`).
    ///
    /// Failures that say the link went silent (a stall, a timeout) are retried for `outageTolerance` since
    /// the last byte; others `retryLimit` times in a row without a byte. An answer "416, the length is now N"
    /// with another N is a new version.
    mutating func fetchFailed(
        _ id: Int, error: any Error, progressed: Bool, cancelled: Bool, at now: Double
    ) -> FailureVerdict {
        guard var fetch = fetches[id], !cancelled, !(error is CancellationError) else {
            finishFetch(id, failure: nil)
            return .stop
        }
        if case .rangeNotSatisfiable(_, let length) = error as? SpoolError, length != info?.length {
            let others = dropVersion().filter { $0 != id }
            for reader in fetch.interested { readers[reader]?.failure = SpoolError.resourceChanged }
            return .newVersion(cancel: others)
        }
        let wait = fetch.retries.failed(error, progressed: progressed, at: now, policy: policy)
        fetches[id] = fetch
        guard let wait else {
            finishFetch(id, failure: error)
            return .fail(error)
        }
        return .retry(after: wait)
    }

    /// Ends request `id`; with `failure`, every reader that needed it fails with that error.
    mutating func finishFetch(_ id: Int, failure: (any Error)?) {
        orphaned[id] = nil
        guard let fetch = fetches.removeValue(forKey: id) else { return }
        guard let failure else { return }
        for reader in fetch.interested { readers[reader]?.failure = failure }
    }

    /// Forgets every stored byte and the content information, after the origin showed the resource changed
    /// without saying what it is now. Returns the requests to cancel.
    mutating func dropVersion() -> [Int] {
        let all = Array(fetches.keys)
        fetches.removeAll()
        stored.removeAll()
        versionNumber += 1
        reset = ResetProgress()
        info = nil
        return all
    }
}
