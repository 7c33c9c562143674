/// The preloaders' byte budgets, as they report them (`TransferSchedule+Budget`).
extension TransferScheduler {
    /// Preloader `owner`'s byte budget (`nil`: none of its own) and what it holds for each item still ahead of
    /// its player, as of its report `version` (increasing: a report that arrives after a newer one is ignored).
    func budget(owner: Int, limit: Int64?, ahead: [String: Int64], version: Int) {
        change { $0.budget(owner: owner, limit: limit, ahead: ahead, version: version) }
    }

    /// Preloader `owner` stopped: it holds nothing any more.
    func forgetBudget(owner: Int) {
        change { $0.forgetBudget(owner: owner) }
    }
}
