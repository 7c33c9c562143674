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
    /// The origin requests and the readers, by id: changed only by the state's own events, in the
    /// `EngineState` files (`.ci/run` checks that no other file writes them).
    var fetches: [Int: Fetch] = [:]
    var readers: [Int: Reader] = [:]
    /// Requests cancelled because their last reader left, with the version they were fetching, until their
    /// task ends: a chunk they had already received is still stored (it is paid for), unless a new version
    /// came meanwhile.
    private(set) var orphaned: [Int: Int] = [:]
    /// The search for the content information while it is unknown (`+Discovery`).
    var discovery = DiscoveryProgress()
    /// What is known of the stored blocks' checks; it changes through its own events, and starts afresh with
    /// every version.
    var checks = BlockChecks()
    /// Bytes fetched that no reader has received yet, for counting what was served from the origin.
    var fresh = FreshBytes()
    /// When each stored block was last used here, for eviction.
    var blockUse = BlockUse()
    /// What the driver is to do after the events so far, in order (`takeActions`).
    private(set) var actions: [EngineAction] = []
    private var nextID = 1

    init(
        policy: FetchPolicy, info: ContentInfo?, stored: ByteRangeSet, created: Date = .distantPast
    ) {
        self.policy = policy
        record = RecordSchedule(created: created)
        self.info = info
        self.stored = stored
    }

    /// Takes what the driver is to do after the events so far, in order: its one `perform` carries it out.
    mutating func takeActions() -> [EngineAction] {
        defer { actions.removeAll() }
        return actions
    }

    /// Asks the driver for `action` (`takeActions`).
    mutating func emit(_ action: EngineAction) {
        actions.append(action)
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

    /// Removes a reader; the requests nobody needs any more are cancelled. With `now` given, those a
    /// playback reader leaves are abandoned instead, for a reader to join, until the driver expires them
    /// (see `FetchPolicy.abandonedRequestGrace`); reads ahead of playback (a preload left by a swipe) cancel.
    /// Such a request with no more than `runsOnWithin` bytes left runs to its end instead, as the first request
    /// of a resource does (`FetchPolicy.abandonedRunsOnWithin`: its connection takes the next read).
    /// The record may be due: what was read moved the last access, and the requests' bytes are stored.
    mutating func removeReader(_ id: Int, abandonAt now: Double? = nil, runsOnWithin: Int64 = 0) {
        let abandons = now != nil && readers[id]?.isPrefetch == false
        readers[id] = nil
        var holdsToWake = false
        for fetchID in fetches.keys.sorted() where fetches[fetchID]!.interested.contains(id) {
            fetches[fetchID]!.interested.remove(id)
            let fetch = fetches[fetchID]!
            // A request held for its readers asks again: its farthest reader may have left, or all of them.
            holdsToWake = holdsToWake || fetch.resumesAt != nil
            guard fetch.interested.isEmpty, !fetch.outlivesReaders else { continue }
            if abandons, fetch.hasStored, fetch.position < fetch.end, fetch.end - fetch.position <= runsOnWithin {
                fetches[fetchID]!.outlivesReaders = true
                holdsToWake = true
            } else if abandons, let now, fetch.position < fetch.end {
                fetches[fetchID]!.abandonedAt = now
                holdsToWake = true
            } else {
                cancelUnneeded(fetchID)
            }
        }
        if holdsToWake { emit(.wakeHolds) }
        emit(.flushRecordSoon)
    }

    /// Ends request `id`, which no reader waits for, if it is still abandoned: its task is cancelled, unless
    /// the request's own task asks (`byItsOwnTask`: before a retry is sent, or in a hold), which ends by itself.
    /// The bytes it received meanwhile are still stored (see `unstoredParts`).
    mutating func expireAbandoned(fetch id: Int, byItsOwnTask: Bool = false) {
        if abandonedSince(fetch: id) != nil { cancelUnneeded(id, endsByItself: byItsOwnTask) }
    }

    /// Cancels request `id`, which no reader needs; unless `endsByItself`, its task is cancelled too.
    mutating func cancelUnneeded(_ id: Int, endsByItself: Bool = false) {
        fetches[id] = nil
        orphaned[id] = versionNumber
        if !endsByItself { emit(.cancel(fetch: id)) }
    }

    // MARK: Requests

    /// The response to a request sent before the content information was known (`requested`) brings that
    /// information: records it, and the request as running from where its body starts, for readers to join
    /// (none waits on it yet). It runs on if they leave, unless it was sized for a whole read and one joined.
    /// The discovery's task goes on as its first try. Returns the request's id.
    @discardableResult
    mutating func openDiscovered(_ answered: ContentInfo, servedFrom offset: Int64, requested: Range<Int64>) -> Int {
        let wholeRead = discovery.running?.extent == .whole
        let unjoinedEnd = discovery.running?.unjoinedEnd
        discovery.running = nil
        let id = makeID()
        fetches[id] = Fetch(
            position: offset, end: max(offset, requested.upperBound), interested: [], outlivesReaders: true,
            outlivesOnlyUntilJoined: wholeRead || unjoinedEnd != nil, unjoinedEnd: unjoinedEnd)
        emit(.discoveryBecame(fetch: id))
        // Callers waiting for the content information find it.
        emit(.wakeReaders)
        absorb(answered, servedFrom: offset, requested: requested.lowerBound, fetch: id)
        if let info, var fetch = fetches[id] {
            // An origin that ignored the range sends the whole body: take all of it, it will not be asked twice.
            fetch.end = info.acceptsRanges ? min(fetch.end, info.length) : info.length
            fetches[id] = fetch
        }
        return id
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
    /// `requested` was asked for. A new version drops every stored byte and cancels every other request;
    /// returns whether the version is new.
    @discardableResult
    mutating func absorb(_ answered: ContentInfo, servedFrom offset: Int64, requested: Int64, fetch id: Int) -> Bool {
        var answered = answered
        if offset < requested { answered.acceptsRanges = false }
        guard let known = info, answered.isDifferentVersion(from: known) else {
            info = info?.completed(by: answered) ?? answered
            return false
        }
        newVersion(keeping: id)
        info = answered
        if let fetch = fetches[id], fetch.end > answered.length { fetches[id]!.end = answered.length }
        return true
    }

    /// Records that the bytes of `range` received by request `id` are on disk. Returns whether the request
    /// still has bytes to deliver; one cancelled because its readers left stores the rest of what it had
    /// received (a reader may have taken those bytes from memory already) until its task ends.
    mutating func didStore(_ range: Range<Int64>, fetch id: Int) -> Bool {
        guard let info else { return false }
        stored.insert(range.clamped(to: 0..<info.length))
        guard var fetch = fetches[id] else { return orphaned[id] == versionNumber }
        if range.lowerBound <= fetch.position, range.upperBound > fetch.position {
            fetch.position = range.upperBound
            fetch.hasStored = true
        }
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
    /// arrived since it was last sent, `cancelled` whether its task was cancelled: another try (a `.retry`
    /// action), or the end (see `finishFetch`), its readers failing with `error` when it is final. An answer
    /// "416, the length is now N" with another N is a new version, which readers of old bytes cannot follow.
    ///
    /// Failures that say the link went silent (a stall, a timeout) are retried for `outageTolerance` since
    /// the last byte; others `retryLimit` times in a row without a byte.
    mutating func fetchFailed(_ id: Int, error: any Error, progressed: Bool, cancelled: Bool, at now: Double) {
        guard var fetch = fetches[id], !cancelled, !(error is CancellationError) else {
            return finishFetch(id, failure: nil)
        }
        if case .rangeNotSatisfiable(_, let length) = error as? SpoolError, length != info?.length {
            // The resource shrank or grew: nothing stored can be trusted to match it.
            dropVersion(keeping: id)
            for reader in fetch.interested { readers[reader]?.failure = SpoolError.resourceChanged }
            return finishFetch(id, failure: nil)
        }
        let wait = fetch.retries.failed(error, progressed: progressed, at: now, policy: policy)
        fetches[id] = fetch
        guard let wait else { return finishFetch(id, failure: error) }
        emit(.retry(fetch: id, after: wait))
    }

    /// Ends request `id`; with `failure`, every reader that needed it fails with that error.
    mutating func finishFetch(_ id: Int, failure: (any Error)?) {
        orphaned[id] = nil
        emit(.ended(fetch: id))
        emit(.flushRecordSoon)
        guard let fetch = fetches.removeValue(forKey: id) else { return }
        guard let failure else { return }
        for reader in fetch.interested { readers[reader]?.failure = failure }
    }

    /// Forgets every stored byte and the content information, after the origin showed the resource changed
    /// without saying what it is now, or the app removed the resource; every request but `kept` (the one that
    /// found the change, which ends itself) is cancelled.
    mutating func dropVersion(keeping kept: Int? = nil) {
        newVersion(keeping: kept)
        info = nil
    }

    /// What every version change does: every request but `kept` cancelled, no stored byte, nothing checked,
    /// a reset owed on disk, and the driver told (`EngineAction.newVersion`).
    private mutating func newVersion(keeping kept: Int?) {
        for other in fetches.keys.sorted() where other != kept {
            fetches[other] = nil
            emit(.cancel(fetch: other))
        }
        emit(.newVersion)
        emit(.wakeReaders)
        stored.removeAll()
        checks.newVersion()
        blockUse = BlockUse()
        versionNumber += 1
        reset = ResetProgress()
    }
}
