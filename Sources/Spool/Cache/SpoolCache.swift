import Foundation

/// A disk cache that plays while it fills: reads return cached bytes from disk and fetch missing ones from
/// the origin, writing them through as they arrive.
///
/// ```swift
/// let cache = try SpoolCache(configuration: SpoolConfiguration(directory: cacheDirectory))
/// for try await chunk in cache.read(url, from: 1_000_000, length: 65_536) {
///     player.append(chunk)
/// }
/// ```
///
/// Readers of the same bytes at the same time share one origin request, so an app opens one `SpoolCache` per
/// directory and shares it (its `SpoolAsset`s, its `SpoolProxy` and its preloader take the same one). Two
/// caches on one directory, in one process or in two (an app and its extension), share it as two processes
/// do: both fill it and their index records merge, but each has its own requests, so bytes both read at once
/// may be fetched by each.
public final class SpoolCache: Sendable {
    /// The configuration the cache was opened with.
    public let configuration: SpoolConfiguration
    let store: DiskStore
    let open: OpenEntries
    /// Lets reads ahead of playback give way to it, cache-wide.
    let gate: PlaybackGate
    /// Decides when every fetch ahead of playback runs (prefetches, preloads, downloads, pins, read-ahead).
    package let transfers: TransferScheduler
    let codec: any BlockCodec
    package let problems: ProblemReporter
    let evictor: Evictor
    private let linkMonitor: LinkMonitor
    let checked = CheckedBlocks()
    private let keys: CacheKeys
    /// What the cache served, fetched and evicted (`statistics`).
    let statisticsCounter: StatisticsCounter
    /// The playback reports of the items played through this cache.
    public let playback: PlaybackReports
    /// Told after `remove` and `removeAll`, at most one waiting (a download queue checks what it holds).
    package let removals = Subscribers<Void>(buffering: 1)

    /// Opens (creating if needed) the cache in `configuration.directory`. Reads no data file; with limits,
    /// reads the index records to apply them.
    public init(configuration: SpoolConfiguration = SpoolConfiguration()) throws {
        self.configuration = configuration
        gate = PlaybackGate(clock: configuration.clock)
        var transferLimits = configuration.transferLimits
        transferLimits.preloadBytes = configuration.preloadByteBudget.map { max(0, $0) } ?? transferLimits.preloadBytes
        transfers = TransferScheduler(
            gate: gate, directory: configuration.directory, clock: configuration.clock, limits: transferLimits)
        linkMonitor = LinkMonitor(clock: configuration.clock)
        store = try DiskStore(directory: configuration.directory)
        codec = try configuration.encryptionKey.map(SealedCodec.init(key:)) ?? ChecksumCodec()
        problems = ProblemReporter(handler: configuration.onProblem)
        evictor = Evictor(limits: configuration.limits, store: store, clock: configuration.clock)
        open = OpenEntries(store: store, evictor: evictor, clock: configuration.clock)
        keys = CacheKeys(policy: configuration.cacheKeyPolicy)
        statisticsCounter = StatisticsCounter(directory: configuration.directory, clock: configuration.clock)
        playback = PlaybackReports(directory: configuration.directory, clock: configuration.clock)
        // The first pass (limits lowered since the last run) goes on the eviction queue, not the caller's
        // thread: it reads every record. Reads started meanwhile queue their own passes behind it.
        if evictor.isActive {
            BlockingIO.start(on: evictor.queue) { [self] in enforceLimitsNow(incoming: 0) }
        }
    }

    /// The bytes of the resource at `url` from `offset`, `length` of them or (`nil`) to its end.
    public func read(_ url: URL, from offset: Int64 = 0, length: Int64? = nil) -> ByteStream {
        read(Resource(url: url), from: offset, length: length)
    }

    /// The bytes of `resource` from `offset`, `length` of them or (`nil`) to its end, for a player waiting
    /// for them (bytes wanted later are `prefetch`ed).
    ///
    /// `consumer` is for a caller that passes the bytes on through buffers it cannot see into, such as a
    /// socket, and so runs ahead of whoever takes them in the end. A read that has delivered bytes from disk
    /// only awaits it once, before its first origin request; it returns when the bytes delivered so far have
    /// been taken, or throws, ending the read with its error, when nobody will take more. Without it, a
    /// player abandoning a read served from the cache would still make the origin send bytes it never plays.
    /// See <doc:ReadingThroughBuffers>.
    public func read(
        _ resource: Resource, from offset: Int64 = 0, length: Int64? = nil,
        consumer: (@Sendable () async throws -> Void)? = nil
    ) -> ByteStream {
        read(resource, from: offset, length: length, purpose: .playback(), consumer: consumer)
    }

    /// `read` for `purpose` (see `ReadSession`), opened when iteration starts; `ahead` says why a read ahead
    /// of playback runs.
    package func read(
        _ resource: Resource, from offset: Int64 = 0, length: Int64? = nil, purpose: ReadPurpose,
        consumer: (@Sendable () async throws -> Void)? = nil, ahead: TransferPurpose? = nil
    ) -> ByteStream {
        ByteStream(opening: {
            try await self.openRead(
                resource, from: offset, length: length, purpose: purpose, consumer: consumer, ahead: ahead)
        })
    }

    /// Opens a read of `length` bytes (`nil`: to the end) of `resource` from `offset`, for `purpose`: its
    /// content information, the bytes stored before it, then its parts, with one lookup of the entry. With
    /// `sizedAsPlayback`, a first origin request is sized as for a player's read to the end (a player's
    /// question for the content information, which its reads follow). See `ReadSession`.
    package func openRead(
        _ resource: Resource, from offset: Int64 = 0, length: Int64? = nil, purpose: ReadPurpose,
        consumer: (@Sendable () async throws -> Void)? = nil, sizedAsPlayback: Bool = false,
        clientData: CommonMediaClientData? = nil, ahead: TransferPurpose? = nil
    ) async throws -> ReadSession {
        try await ReadSession.open(
            acquire(resource), from: offset, length: length, purpose: purpose, consumer: consumer,
            sizedAsPlayback: sizedAsPlayback, clientData: clientData, ahead: ahead,
            release: { [weak self] engine in self?.release(engine) ?? engine.closeBlocking() })
    }

    /// Caches `length` bytes (or to the end) of `resource` from `offset` without delivering them, giving way
    /// to playback reads; shares origin requests with any read of the same bytes. Returns the bytes covered.
    ///
    /// Prefetches run when the cache's transfers let them: after the player's stream's read-ahead, before
    /// preloads and downloads, a few at a time per host.
    @discardableResult
    public func prefetch(_ resource: Resource, from offset: Int64 = 0, length: Int64? = nil) async throws -> Int64 {
        guard offset >= 0, (length ?? 0) >= 0 else {
            throw SpoolError.rangeNotSatisfiable(requested: offset, length: length ?? 0)
        }
        let end = length.map { offset + min($0, Int64.max - offset) }
        let stored = try await transfer(resource, span: TransferSpan(start: offset, end: end), purpose: .prefetch)
        return stored.upperBound - stored.lowerBound
    }

    /// Stores `span` of `resource` for `purpose` when the cache's transfer scheduler lets it run, and only
    /// while `conditions` (if any) allow it and `budget` (if any) is not spent; returns the span's bytes (to the
    /// resource's end at most), stored. `progress` hears how many are stored, `waiting` what the transfer waits
    /// for.
    package func transfer(
        _ resource: Resource, span: TransferSpan, purpose: TransferPurpose, conditions: TransferConditions? = nil,
        progress: @escaping @Sendable (_ stored: Int64, _ total: Int64) -> Void = { _, _ in },
        budget: TransferBudgetClaim? = nil, waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws -> Range<Int64> {
        try await transfers.fetch(
            resource, span: span, purpose: purpose, conditions: conditions, budget: budget, in: self,
            progress: progress, waiting: waiting)
    }

    /// Caches `length` bytes (or to the end) of the resource at `url` from `offset` (see `prefetch` of a
    /// `Resource`). Returns the bytes covered.
    @discardableResult
    public func prefetch(_ url: URL, from offset: Int64 = 0, length: Int64? = nil) async throws -> Int64 {
        try await prefetch(Resource(url: url), from: offset, length: length)
    }

    /// The bytes of `range` of `resource` in memory, read whole (`ReadExtent.whole`: one origin request for
    /// what is missing): for small resources a caller parses, such as HLS playlists. With `awaitsStoring`
    /// false it returns as soon as the bytes have arrived, maybe before they are stored: for a look at a
    /// resource's first bytes on the way to serving it (the wait for the write was most of a cold request's
    /// time to its first byte).
    package func data(
        of resource: Resource, in range: Range<Int64>, priority: ReadPriority = .playback, awaitsStoring: Bool = true
    ) async throws -> Data {
        try await openRead(
            resource, from: range.lowerBound, length: range.upperBound - range.lowerBound,
            purpose: .look(priority: priority, awaitsStoring: awaitsStoring)
        ).readAll()
    }

    /// The content information of `resource`: from the cache when known, else from the origin. An HTTP
    /// origin is asked with a first range request rather than a `HEAD`, and the bytes it brings are cached:
    /// `firstRead` says which bytes will be read first (by default the start of the resource), so that the
    /// request brings those.
    public func contentInfo(for resource: Resource, firstRead: Range<Int64>? = nil) async throws -> ContentInfo {
        let engine = acquire(resource)
        defer { release(engine) }
        return try await engine.contentInfo(near: firstRead?.lowerBound ?? 0, until: firstRead?.upperBound)
    }

    /// Stored bytes of the entry `key` (see `key(for:)`) lent at once as one file slice, without a read or a
    /// task: for a server that answers, on the thread its request arrived on, a request whose bytes are all on
    /// disk. `range` picks the
    /// bytes from the content information (it runs outside every lock); the answer is `nil`, and nothing is
    /// lent, when the entry is not open, its content information is not known, the cache is encrypted, `range`
    /// returns `nil` or more than `FetchPolicy.fileSliceSize` bytes, or any of them is missing or not yet
    /// checked in this process. The caller then reads as usual, which checks them. With the slice come the
    /// resource's first 16 bytes (all of a shorter one) when this process has read or written them, for a
    /// caller that tells a format by them without a read of its own, and how many of the slice's bytes no
    /// player had taken since they were fetched (`fresh`: a playback report counts them as the origin's).
    package func lendStored(
        key: String, revoke: @escaping @Sendable () -> Void, range: (ContentInfo) -> Range<Int64>?
    ) -> (info: ContentInfo, slice: FileSlice, fresh: Int64, leadingBytes: Data?)? {
        guard codec.isIdentity, let (engine, info) = open.acquireIfKnown(key: key) else { return nil }
        let wanted = range(info).flatMap { wanted in
            wanted.isEmpty || wanted.upperBound - wanted.lowerBound > Int64(configuration.fetchPolicy.fileSliceSize)
                ? nil : wanted
        }
        // The use ends in the same turn of the entry's lock as the lending: the lock event loops wait for.
        let (slice, fresh, leadingBytes, idle) = engine.lendStoredAndRelease(wanted, of: info, revoke: revoke)
        open.released(engine, idle: idle)
        return slice.map { (info, $0, fresh, leadingBytes) }
    }

    /// The content information of the resource at `url` (see `contentInfo(for:firstRead:)`).
    public func contentInfo(for url: URL, firstRead: Range<Int64>? = nil) async throws -> ContentInfo {
        try await contentInfo(for: Resource(url: url), firstRead: firstRead)
    }

    /// The cache key of `resource`.
    public func key(for resource: Resource) -> String {
        resource.cacheKey.map { CacheKeyPolicy.digest("custom:" + $0) } ?? keys.key(for: resource.url)
    }

    /// Waits for running origin requests to end and writes every index record; call it before the process
    /// exits (a command-line tool) so the index holds everything that reached the disk.
    public func close() async {
        let active = Array(open.all.values)
        for engine in active { await engine.settle() }
        for engine in active { await open.closeNow(engine) }
        _ = try? await BlockingIO.run { [statisticsCounter] in statisticsCounter.flush() }
        await playback.flush()
    }

    /// A cache dropped without `close()` still leaves its index up to date (index writes during downloads run
    /// in the background and may not have happened yet); entries being read on close when they go idle.
    ///
    /// This is the one place that blocks wherever it runs, a Swift task included (an exception the debug
    /// checks allow by name): handing the writes to `BlockingIO` would let a cache opened next on the same
    /// directory read records older than what this one stored. `close()` does the same work on `BlockingIO`.
    deinit {
        ConcurrencyChecks.allowingBlocking {
            open.closeBlocking()
            statisticsCounter.flush()
        }
    }

    /// The clock of this cache's engines, for the proxy's timers and a preloader.
    package var clock: any SpoolClock { configuration.clock }

    /// The engine of `resource`, counted as used until `release`.
    func acquire(_ resource: Resource) -> ResourceEngine {
        open.acquire(
            key: key(for: resource), url: resource.url, origin: resource.origin ?? configuration.origin,
            environment: environment)
    }

    private var environment: EngineEnvironment {
        EngineEnvironment(
            store: store, policy: configuration.fetchPolicy, codec: codec, clock: configuration.clock,
            problems: problems, link: linkMonitor, checked: checked, gate: gate, statistics: statisticsCounter,
            clientData: configuration.clientData,
            willWrite: { [weak self] bytes in
                guard let self, self.evictor.noteWritten(bytes) else { return false }
                await self.makeRoom(for: bytes)
                return true
            },
            limitsAfterWrite: { [weak self] in await self?.makeRoom(for: 0) },
            // Batches of 4 blocks took a cold read through the proxy from 0.85-1.02 to 0.71-0.81 CPU seconds per
            // 256 MiB. Under a size limit nothing overlaps: a chunk received while another is written lands
            // ahead of a reader that still needs the bytes before it, past what eviction can take back, and a
            // lone reader's cache must stay within a block of its limit.
            writeBatchLimit: configuration.limits.maxBytes == nil ? Int(4 * BlockLayout.blockSize) : 0)
    }

    func release(_ engine: ResourceEngine) {
        open.release(engine)
        if statisticsCounter.isFlushDue() {
            BlockingIO.start { [statisticsCounter] in statisticsCounter.flush() }
        }
    }
}
