import Foundation

/// Preloads one item: plans it, then downloads what of the plan is missing, piece by piece, at prefetch
/// priority, stepping aside whenever a playback read waits for origin bytes (its request is cancelled and
/// started again from the first missing byte once playback has had the link to itself for a moment).
struct PreloadJob: Sendable {
    let cache: SpoolCache
    let planner: PreloadPlanner
    /// Told each resource's key before its bytes are downloaded, and after each range what of it is stored.
    let onStored: @Sendable (_ key: String, _ stored: [Range<Int64>]) -> Void
    let onProgress: @Sendable (PreloadState) -> Void

    /// The most times one range gives way to playback before the job gives up on it for now.
    static let maximumYields = 10_000

    /// Returns the bytes of the plan stored.
    func run(_ item: PreloadItem) async throws -> Int64 {
        let plan = try await planner.plan(item)
        var total: Int64 = plan.pieces.reduce(0) { $0 + ($1.range.map { $0.upperBound - $0.lowerBound } ?? 0) }
        var done: Int64 = 0
        for piece in plan.pieces {
            try Task.checkCancellation()
            if let budget = plan.byteBudget, done >= budget { break }
            let range: Range<Int64>
            if let wanted = piece.range {
                range = wanted
            } else {
                await cache.gate.waitForPlayback()
                let length = try await cache.contentInfo(for: piece.resource, extent: .whole).length
                range = 0..<length
                total += length
            }
            onProgress(.loading(bytes: done, total: total))
            try await download(piece.resource, range)
            done += range.upperBound - range.lowerBound
        }
        onProgress(.loading(bytes: done, total: total))
        return done
    }

    /// Stores `range` of `resource`, giving way to playback.
    private func download(_ resource: Resource, _ range: Range<Int64>) async throws {
        let key = cache.key(for: resource)
        onStored(key, [])
        for _ in 0..<Self.maximumYields {
            try Task.checkCancellation()
            guard let gap = cache.cachedRanges(for: resource).gaps(in: range).first else { return }
            await cache.gate.waitForPlayback()
            try Task.checkCancellation()
            defer { onStored(key, cache.cachedRanges(for: resource).intersection(gap)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [cache] in
                    let stream = cache.read(
                        resource, from: gap.lowerBound, length: gap.upperBound - gap.lowerBound, priority: .prefetch,
                        extent: .whole)
                    for try await _ in stream {}
                }
                group.addTask { [cache] in await cache.gate.untilPlaybackWaits() }
                // Whichever ends first: the bytes are stored, or playback wants the link (then what arrived so
                // far stays stored, and the loop asks again for the rest).
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }
}
