/// Whose byte budget a preload counts against: a preloader (`owner`, one per player) and the feed item the bytes
/// are for. The owner tells the schedule which of its items are still ahead of its player and how many bytes it
/// holds for each (`TransferSchedule.budget(owner:limit:ahead:version:)`); a claim for an item the player has
/// reached counts against nothing.
package struct TransferBudgetClaim: Sendable, Hashable {
    /// The preloader.
    package let owner: Int
    /// The item's identifier in its feed.
    package let item: String

    package init(owner: Int, item: String) {
        self.owner = owner
        self.item = item
    }
}
