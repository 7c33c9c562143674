import Foundation

/// Preloads one item: plans it, then downloads what of the plan is missing, piece by piece, at prefetch
/// priority: no request starts while a playback read of the cache waits for origin bytes, and a running one
/// pauses meanwhile (it stops reading its socket, so nothing it received is lost or fetched again).
struct PreloadJob: Sendable {
    let cache: SpoolCache
    let planner: PreloadPlanner
    /// Told each resource's key before its bytes are downloaded, and after each range what of it is stored.
    let onStored: @Sendable (_ key: String, _ stored: [Range<Int64>]) -> Void
    let onProgress: @Sendable (PreloadState) -> Void

    /// The most passes over one range's gaps: a pass ends with them stored unless another process or an
    /// eviction took some back meanwhile.
    static let maximumAttempts = 3
    /// How often a download reports its progress while it runs: every 256 KiB, a progress bar's step for an
    /// item of a few MB, not an event per chunk.
    static let progressStep: Int64 = 256 * 1024

    /// Plans `item` and downloads the plan; returns the bytes of the plan stored.
    func run(_ item: PreloadItem) async throws -> Int64 {
        try await download(try await planner.plan(item))
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
                await cache.gate.waitForPlayback()
                let length = try await cache.contentInfo(for: piece.resource, extent: .whole).length
                range = 0..<length
                total += length
            }
            onProgress(.loading(bytes: done, total: total))
            let (before, planned) = (done, total)
            try await store(piece.resource, range) { onProgress(.loading(bytes: before + $0, total: planned)) }
            done += range.upperBound - range.lowerBound
        }
        onProgress(.loading(bytes: done, total: total))
        return done
    }

    /// Stores `range` of `resource`, giving way to playback; tells `progress` how many bytes of `range` are
    /// stored every `progressStep` while it reads.
    private func store(_ resource: Resource, _ range: Range<Int64>, progress: (Int64) -> Void) async throws {
        let key = cache.key(for: resource)
        onStored(key, [])
        for _ in 0..<Self.maximumAttempts {
            let gaps = await cache.cachedRanges(for: resource).gaps(in: range)
            guard !gaps.isEmpty else { return }
            var stored = gaps.reduce(range.upperBound - range.lowerBound) { $0 - ($1.upperBound - $1.lowerBound) }
            var reported = stored
            for gap in gaps {
                try Task.checkCancellation()
                await cache.gate.waitForPlayback()
                try Task.checkCancellation()
                // The engine pauses the request while playback needs the link (`FetchRunner.holdBack`).
                let stream = cache.read(
                    resource, from: gap.lowerBound, length: gap.upperBound - gap.lowerBound, priority: .prefetch,
                    extent: .whole)
                // What was stored is reported whether the read ended or failed.
                var failure: (any Error)?
                do {
                    for try await chunk in stream {
                        stored += Int64(chunk.count)
                        if stored - reported >= Self.progressStep {
                            reported = stored
                            progress(stored)
                        }
                    }
                } catch {
                    failure = error
                }
                onStored(key, await cache.cachedRanges(for: resource).intersection(gap))
                if let failure { throw failure }
            }
        }
    }
}
