import Foundation

/// Preloads one item: plans it, then downloads what of the plan is missing, piece by piece, through a
/// `RangeStore`: giving way to playback, and only while the device's conditions allow preloads.
struct PreloadJob: Sendable {
    let cache: SpoolCache
    let planner: PreloadPlanner
    let conditions: any ConditionsSource
    let rules: TransferRules
    /// Told each resource's key before its bytes are downloaded, and after each range what of it is stored.
    let onStored: @Sendable (_ key: String, _ stored: [Range<Int64>]) -> Void
    let onProgress: @Sendable (PreloadState) -> Void

    private var ranges: RangeStore { RangeStore(cache: cache, conditions: conditions, rules: rules) }

    /// Plans `item` and downloads the plan; returns the bytes of the plan stored.
    func run(_ item: PreloadItem) async throws -> Int64 {
        try await whenAllowed()
        return try await download(try await planner.plan(item))
    }

    /// Downloads what of `plan` is missing; returns the bytes of the plan stored.
    func download(_ plan: PreloadPlan) async throws -> Int64 {
        var total: Int64 = plan.pieces.reduce(0) { $0 + ($1.range.map { $0.upperBound - $0.lowerBound } ?? 0) }
        var done: Int64 = 0
        for piece in plan.pieces {
            try Task.checkCancellation()
            if let budget = plan.byteBudget, done >= budget { break }
            let range: Range<Int64>
            if let wanted = piece.range {
                range = wanted
            } else {
                try await whenAllowed()
                await cache.gate.waitForPlayback()
                let length = try await cache.contentInfo(for: piece.resource, extent: .whole).length
                range = 0..<length
                total += length
            }
            onProgress(.loading(bytes: done, total: total))
            let (before, planned, report) = (done, total, onProgress)
            let key = cache.key(for: piece.resource)
            onStored(key, [])
            try await ranges.store(
                piece.resource, range, onStored: { [onStored] in onStored(key, $0) },
                progress: { report(.loading(bytes: before + $0, total: planned)) },
                waiting: { report(.waiting($0)) })
            done += range.upperBound - range.lowerBound
        }
        onProgress(.loading(bytes: done, total: total))
        return done
    }

    /// Returns once the conditions allow a preload, telling `onProgress` what it waits for meanwhile.
    func whenAllowed() async throws {
        let report = onProgress
        try await ranges.whenAllowed { report(.waiting($0)) }
    }
}
