import Foundation

/// Preloads one item: plans it, then says what of the plan to store, piece by piece; the cache's transfer
/// scheduler runs each piece as a preload (after playback, read-ahead and prefetches, before downloads, and
/// only while the device's conditions allow preloads).
struct PreloadJob: Sendable {
    let client: TransferClient
    let planner: PreloadPlanner
    /// Told each resource's key before its bytes are downloaded, and after each piece what of it this job
    /// stored.
    let onStored: @Sendable (_ key: String, _ stored: [Range<Int64>]) -> Void
    let onProgress: @Sendable (PreloadState) -> Void

    private var cache: SpoolCache { client.cache }

    /// Plans `item` and downloads the plan; returns the bytes of the plan stored.
    func run(_ item: PreloadItem) async throws -> Int64 {
        try await download(try await planner.plan(item, waiting: { [onProgress] in onProgress(.waiting($0)) }))
    }

    /// Downloads what of `plan` is missing; returns the bytes of the plan stored.
    func download(_ plan: PreloadPlan) async throws -> Int64 {
        var total: Int64 = plan.pieces.reduce(0) { $0 + ($1.range.map { $0.upperBound - $0.lowerBound } ?? 0) }
        var done: Int64 = 0
        for piece in plan.pieces {
            try Task.checkCancellation()
            if let budget = plan.byteBudget, done >= budget { break }
            let span = piece.range.map(TransferSpan.init) ?? TransferSpan()
            let key = cache.key(for: piece.resource)
            onStored(key, [])
            let missing = await cache.cachedRanges(for: piece.resource).gaps(
                in: span.start..<(span.end ?? Int64.max))
            onProgress(.loading(bytes: done, total: total))
            let (before, planned, report, known) = (done, total, onProgress, piece.range != nil)
            let stored: Range<Int64>
            do {
                stored = try await client.store(
                    piece.resource, span,
                    progress: { report(.loading(bytes: before + $0, total: known ? planned : planned + $1)) },
                    waiting: { report(.waiting($0)) })
                await reportStored(piece.resource, key: key, missing: missing)
            } catch {
                await reportStored(piece.resource, key: key, missing: missing)
                throw error
            }
            if !known { total += stored.upperBound - stored.lowerBound }
            done += stored.upperBound - stored.lowerBound
        }
        onProgress(.loading(bytes: done, total: total))
        return done
    }

    /// Tells `onStored` what of `missing` (the piece's bytes missing before) is stored now.
    private func reportStored(_ resource: Resource, key: String, missing: [Range<Int64>]) async {
        let now = await cache.cachedRanges(for: resource)
        onStored(key, missing.flatMap { now.intersection($0) })
    }
}
