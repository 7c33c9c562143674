import Foundation

/// What a feature fetches through: the cache's transfer scheduler, for one purpose, under one set of device
/// conditions. A feature says what it wants stored (`store`) or read (`data`, `playlist`); the scheduler
/// decides when each runs.
package struct TransferClient: Sendable {
    /// The cache stored into.
    package let cache: SpoolCache
    /// Why the feature fetches.
    package let purpose: TransferPurpose
    /// The conditions its transfers run under; `nil`: any.
    package let conditions: TransferConditions?
    /// The byte budget its transfers count against; `nil`: none.
    package let budget: TransferBudgetClaim?

    package init(
        cache: SpoolCache, purpose: TransferPurpose, conditions: TransferConditions? = nil,
        budget: TransferBudgetClaim? = nil
    ) {
        self.cache = cache
        self.purpose = purpose
        self.conditions = conditions
        self.budget = budget
    }

    /// Stores `span` of `resource` (see `SpoolCache.transfer`); returns its bytes, stored.
    @discardableResult
    package func store(
        _ resource: Resource, _ span: TransferSpan = TransferSpan(),
        progress: @escaping @Sendable (_ stored: Int64, _ total: Int64) -> Void = { _, _ in },
        waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws -> Range<Int64> {
        try await cache.transfer(
            resource, span: span, purpose: purpose, conditions: conditions, progress: progress, budget: budget,
            waiting: waiting)
    }

    /// The bytes of `span` of `resource` (clipped to its end), stored first through the scheduler and then read
    /// from the cache, with its content information: for what a feature parses (playlists, a file's layout).
    package func data(
        _ resource: Resource, _ span: TransferSpan = TransferSpan(),
        waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws -> (info: ContentInfo, data: Data) {
        let range = try await store(resource, span, waiting: waiting)
        // Stored a moment ago: from disk, unless another process or an eviction took it back meanwhile (then
        // the read fetches it again).
        let session = try await cache.openRead(
            resource, from: range.lowerBound, length: range.upperBound - range.lowerBound,
            purpose: .look(priority: .prefetch))
        return (session.info, try await session.readAll())
    }
}
