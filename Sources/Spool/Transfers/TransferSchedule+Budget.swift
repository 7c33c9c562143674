/// Byte budgets for preloading: what preloads may hold that no player has reached yet, per preloader (one per
/// player, `PreloadConfiguration.byteBudget`) and for all of them (`SpoolConfiguration.preloadByteBudget`).
///
/// A budget decides when a preload *starts*, as a player's buffer target decides when it loads more: a job
/// all of whose subscribers claim a budget that is spent waits (its subscribers hear `byteBudget`) until the
/// player reaches an item or items leave the window; a running job finishes its span, so an owner holds at most
/// its budget plus the span that crossed it. A job held by a budget holds back nothing else: other owners'
/// preloads and downloads go on.
extension TransferSchedule {
    /// One owner's budget and what it holds.
    struct Budget: Sendable, Equatable {
        /// The most bytes it may hold for items ahead; `nil`: no limit of its own (the shared one still counts).
        var limit: Int64?
        /// The bytes it holds for each item still ahead of its player.
        var ahead: [String: Int64] = [:]
        /// The latest report's version: an older report that arrives late changes nothing.
        var version = 0

        var held: Int64 { ahead.values.reduce(0, +) }
        var isSpent: Bool { limit.map { held >= $0 } ?? false }
    }

    /// The owner's limit and what it now holds for each item ahead of its player (`version` increasing with each
    /// report). Starts what a smaller holding lets start.
    mutating func budget(owner: Int, limit: Int64?, ahead: [String: Int64], version: Int) -> [Action] {
        if let known = budgets[owner], known.version >= version { return [] }
        budgets[owner] = Budget(limit: limit.map { max(0, $0) }, ahead: ahead, version: version)
        return reconcile()
    }

    /// The owner stopped: it holds nothing any more.
    mutating func forgetBudget(owner: Int) -> [Action] {
        guard budgets.removeValue(forKey: owner) != nil else { return [] }
        return reconcile()
    }

    /// The bytes all owners hold for items ahead of their players.
    var budgetHeld: Int64 {
        budgets.values.reduce(0) { $0 + $1.held }
    }

    /// Whether `job` waits for a budget: every subscriber claims one for an item still ahead, and each claim's
    /// owner has spent its own or all preloads together have spent the shared one.
    func isHeldByBudget(_ job: Job) -> Bool {
        let sharedSpent = limits.preloadBytes.map { budgetHeld >= $0 } ?? false
        return !job.subscribers.isEmpty
            && job.subscribers.allSatisfy { id in
                guard let claim = subscribers[id]?.budget, let budget = budgets[claim.owner],
                    budget.ahead[claim.item] != nil
                else { return false }
                return sharedSpent || budget.isSpent
            }
    }
}
