/// How a `SpoolPreloader` preloads a feed.
///
/// The defaults suit a feed of short videos watched one after another:
/// - **Two items ahead, one behind.** Most swipes go forward one item; the second gives a quick double swipe
///   something, and one back covers the user returning. More ahead multiplies the bytes wasted on items
///   skipped for little gain: a preload of an item only has to be ahead of the user by one viewing.
/// - **3 seconds.** A player starts once it has a couple of seconds buffered (AVPlayer's
///   `automaticallyWaitsToMinimizeStalling`, ffmpeg's probe); by the time those have played, playback's own
///   reads have fetched the rest. Bytes vary with the bit rate (800 KB is 6 s at 1 Mbit/s but 1.3 s at
///   5 Mbit/s), so the target is in seconds where the layout tells them.
/// - **1 MB** when the layout is not understood: about 3 s of a 2.5 Mbit/s feed video.
/// - **Two downloads at a time**: the current item's (its player shares it) and the next one's, nearest
///   first. The other items do not wait for the current one (`waitsForCurrentItem` false): the playback gate
///   already pauses preloads while the current item's player waits for its first bytes or starves, and
///   waiting for the current item's seconds held the next ones back when the user swiped fast (on a
///   10 Mbit/s, 100 ms link, an item reached after two quick swipes was still queued).
/// - **Not on a constrained network** (`TransferRules.preloads`): a user who turned Low Data Mode on asked apps
///   not to fetch what they might not need, and a preload is a guess.
public struct PreloadConfiguration: Sendable {
    /// Items after the current one to keep preloaded.
    public var itemsAhead: Int
    /// Items before the current one to keep preloaded.
    public var itemsBehind: Int
    /// How much of each item, unless the item says otherwise.
    public var target: PreloadTarget
    /// The bytes preloaded of an item whose layout gives no offset for `target`'s seconds.
    public var fallbackBytes: Int64
    /// Downloads at a time. Against one host, the cache's transfer scheduler runs at most three preloads' and
    /// downloads' requests at once whatever this says, keeping a place for playback's read-ahead.
    public var maximumConcurrentDownloads: Int
    /// Whether other items wait until the current item's own target is stored (the preloader reads it too,
    /// sharing the player's requests): the current item first, whatever the player does. Off by default.
    public var waitsForCurrentItem: Bool
    /// The variant of an HLS master playlist to preload: by default the first listed, which AVPlayer and most
    /// players start with.
    public var variants: HLSVariantChoice
    /// When preloads may run, given the device's conditions (the preloader's `ConditionsSource`).
    public var rules: TransferRules
    /// The most bytes this preloader (one per player) keeps preloaded for items its player has not reached: a
    /// preload starts only while the items ahead hold less, nearest first, and the bytes of an item count no
    /// more once the player reaches it or it leaves the window. The cache's transfer scheduler keeps it, with
    /// the budget of all preloaders together (`SpoolConfiguration.preloadByteBudget`). `nil`, the default: the
    /// window and the targets bound it.
    public var byteBudget: Int64?

    /// A configuration; see the type's documentation for why the defaults are what they are.
    public init(
        itemsAhead: Int = 2, itemsBehind: Int = 1, target: PreloadTarget = .seconds(3),
        fallbackBytes: Int64 = 1_000_000, maximumConcurrentDownloads: Int = 2, waitsForCurrentItem: Bool = false,
        variants: HLSVariantChoice = .first, rules: TransferRules = .preloads, byteBudget: Int64? = nil
    ) {
        self.itemsAhead = max(0, itemsAhead)
        self.itemsBehind = max(0, itemsBehind)
        self.target = target
        self.fallbackBytes = max(0, fallbackBytes)
        self.maximumConcurrentDownloads = max(1, maximumConcurrentDownloads)
        self.waitsForCurrentItem = waitsForCurrentItem
        self.variants = variants
        self.rules = rules
        self.byteBudget = byteBudget.map { max(0, $0) }
    }
}
