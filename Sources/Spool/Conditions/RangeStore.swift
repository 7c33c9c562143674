import Foundation

/// Stores ranges of resources for transfers the user is not waiting for (preloads, downloads for offline): at
/// prefetch priority, so no request starts while a playback read of the cache waits for origin bytes and a
/// running one pauses meanwhile (it stops reading its socket, so nothing it received is lost or fetched again);
/// and under `rules`, so nothing starts while the device's conditions do not allow it, and a read in progress
/// ends when they stop allowing it. What a read stored stays; the next pass goes on from the first missing byte.
/// With a disk reserve, a read looks at the free space every `diskCheckStep` bytes, so it stops before the disk
/// fills, not at the next change of the conditions.
struct RangeStore: Sendable {
    let cache: SpoolCache
    let conditions: any ConditionsSource
    let rules: TransferRules
    /// Seconds between looks at the free space while a transfer waits for it.
    var diskRecheckInterval: TimeInterval = 10

    /// The most passes over one range's gaps: a pass ends with them stored unless another process or an
    /// eviction took some back meanwhile. A pass the conditions cut short does not count.
    static let maximumAttempts = 3
    /// How often a read reports its progress: every 256 KiB, a progress bar's step for an item of a few MB, not
    /// an event per chunk.
    static let progressStep: Int64 = 256 * 1024
    /// How often a read with a disk reserve looks at the free space: every 1 MiB, so it stops at most that
    /// much (and what is in flight) past the reserve, at the cost of a `statfs` per MiB.
    static let diskCheckStep: Int64 = 1 << 20

    /// Returns once the conditions allow the transfer, telling `waiting` what it waits for meanwhile.
    func whenAllowed(waiting: @escaping @Sendable ([TransferBlocker]) -> Void) async throws {
        try await conditions.waitUntilAllowed(
            by: rules, directory: cache.configuration.directory, diskRecheckInterval: diskRecheckInterval,
            waiting: waiting)
    }

    /// Stores `range` of `resource`, giving way to playback and to the conditions. `onStored` hears what of each
    /// gap is stored after its read (whether it ended, failed or was cut short); `progress`, every
    /// `progressStep`, how many bytes of `range` are stored; `waiting`, what the transfer waits for.
    func store(
        _ resource: Resource, _ range: Range<Int64>,
        onStored: @escaping @Sendable ([Range<Int64>]) -> Void = { _ in },
        progress: @escaping @Sendable (Int64) -> Void = { _ in },
        waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws {
        var (passes, rounds) = (0, 0)
        // Bounded: a pass either counts, or was cut short by a change of the conditions, which only the device
        // makes (and each such pass waits for them to allow it again).
        while passes < Self.maximumAttempts, rounds < Self.maximumAttempts * 1000 {
            rounds += 1
            let gaps = await cache.cachedRanges(for: resource).gaps(in: range)
            guard !gaps.isEmpty else { return }
            var stored = gaps.reduce(range.upperBound - range.lowerBound) { $0 - ($1.upperBound - $1.lowerBound) }
            var cutShort = false
            for gap in gaps where !cutShort {
                try await whenAllowed(waiting: waiting)
                await cache.gate.waitForPlayback()
                try Task.checkCancellation()
                let outcome = await readWhileAllowed(resource, gap, storedBefore: stored, progress: progress)
                onStored(await cache.cachedRanges(for: resource).intersection(gap))
                try Task.checkCancellation()
                switch outcome {
                case .read(let received): stored += received
                case .cutShort: cutShort = true
                case .failed(let error): throw error
                }
            }
            if !cutShort { passes += 1 }
        }
    }

    /// Runs `work` unless the conditions stop allowing the transfer first: then `work` is cancelled (what it
    /// stored stays) and this returns `nil`.
    func whileAllowed<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T? {
        let (conditions, rules) = (conditions, rules)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                for await now in conditions.updates() where !rules.blockers(in: now).isEmpty { return nil }
                // Cancelled: the work ended first, and this answer is never looked at.
                throw CancellationError()
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }

    /// How a read of a gap ended.
    private enum GapRead: Sendable {
        case read(Int64)
        case cutShort
        case failed(any Error)
    }

    /// Reads `gap` of `resource` (the engine stores it; the engine pauses the request while playback needs the
    /// link, `FetchRunner.holdBack`), unless the conditions stop allowing it first, or the free space falls
    /// below the reserve: then the read ends, and what arrived stays stored.
    private func readWhileAllowed(
        _ resource: Resource, _ gap: Range<Int64>, storedBefore: Int64, progress: @escaping @Sendable (Int64) -> Void
    ) async -> GapRead {
        let (cache, conditions, rules) = (cache, conditions, rules)
        let directory = cache.configuration.directory
        do {
            // `nil` inside: the reserve was reached.
            let received = try await whileAllowed { () async throws -> Int64? in
                let stream = cache.read(
                    resource, from: gap.lowerBound, length: gap.upperBound - gap.lowerBound, priority: .prefetch,
                    extent: .whole)
                var (received, reported, checked) = (Int64(0), Int64(0), Int64(0))
                for try await chunk in stream {
                    received += Int64(chunk.count)
                    if received - reported >= Self.progressStep {
                        reported = received
                        progress(storedBefore + received)
                    }
                    if rules.diskReserveBytes > 0, received - checked >= Self.diskCheckStep {
                        checked = received
                        let free = await conditions.availableDiskBytes(at: directory)
                        if rules.blockers(in: DeviceConditions(), availableDiskBytes: free).contains(.lowDiskSpace) {
                            return nil
                        }
                    }
                }
                return received
            }
            switch received {
            case .some(.some(let bytes)): return .read(bytes)
            case .some(.none), .none: return .cutShort
            }
        } catch {
            return .failed(error)
        }
    }
}
