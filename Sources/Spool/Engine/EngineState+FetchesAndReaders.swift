/// What the state knows of each request and each reader.
extension EngineState {
    /// A running origin request for `position..<end`. Its bytes before `position` have arrived.
    struct Fetch {
        var position: Int64
        var end: Int64
        var interested: Set<Int>
        /// Runs to its end even when every reader leaves: the first request of a resource, sent before anyone
        /// could say what it needs, whose bytes the next request of a player almost always starts on.
        var outlivesReaders = false
        /// A first request sized for a whole read (`ReadExtent.whole`, up to `FetchPolicy.wholeRequestLimit`): it
        /// outlives readers only until one joins it, then ends with its readers like any request, so a pin or a
        /// preload cancelled part-way does not run on for tens of MiB nobody asked for any more.
        var outlivesOnlyUntilJoined = false
        /// For a first request that asked for a read's rest (the origin's bodies pause while unread): where it
        /// stops outliving readers while none joined it, the size it would have had otherwise. A resource looked
        /// up for its content information alone then costs no more than before.
        var unjoinedEnd: Int64?
        /// Where a request held back ahead of its readers (`EngineState.Hold.aheadOfReaders`) goes on: once a
        /// reader's delivery reaches this offset.
        var resumesAt: Int64?
        /// Whether it has stored any of its bytes: one a player abandoned before it did is not worth running on
        /// (`removeReader(_:abandonAt:runsOnWithin:)`): all it would bring is unasked for, and its connection may
        /// not even be open yet.
        var hasStored = false
        /// Its failures in a row and when bytes last arrived, or the request started.
        var retries = RetryBudget(startedAt: 0)
        /// When its last reader, a player's, left (monotonic seconds); `nil` while a reader waits for it. See
        /// `removeReader(_:abandonAt:)`.
        var abandonedAt: Double?
    }

    /// A reader of the resource.
    struct Reader {
        /// Where the read ends, exclusive; `nil` for the resource's end.
        var requestedEnd: Int64?
        /// Whether every byte up to the end will be consumed (`ReadExtent.whole`).
        var wantsAll = false
        /// Where the reader started, so that its pieces can follow what it has consumed.
        var start: Int64?
        /// The first byte it has not delivered, as its last step or delivery said: eviction spares what it is
        /// about to read.
        var position: Int64?
        /// What it took from bytes still arriving (`ArrivingBytes`): its read ends once those are stored, or
        /// never will be.
        var takenFromMemory = ByteRangeSet()
        /// The version of the bytes it has delivered, once it has delivered any.
        var versionNumber: Int?
        /// Why a request it waited on failed.
        var failure: (any Error)?
        /// Whether it may ask the origin for bytes without asking its consumer first: it waited for the
        /// origin before delivering anything, started on bytes a running request was still delivering, or
        /// its consumer caught up when asked.
        var mayFetch = false
        /// Whether it reads ahead of playback (`ReadPriority.prefetch`): requests only such readers wait for
        /// pause while a playback read of the cache waits (`mayPause(fetch:)`).
        var isPrefetch = false
        /// Whether it has just looked at another process's record (`lookedElsewhere`): its next step may
        /// start requests.
        var lookedElsewhere = false
    }
}
