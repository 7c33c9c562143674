/// What a read is for, which decides everything the engine does differently for it: whether a player waits
/// for its bytes, how large its origin requests are, whether its bytes count as served, and whether its end
/// waits for the bytes it took from memory to be stored.
package struct ReadPurpose: Sendable, Hashable {
    /// Whether a player waits for the bytes (`.playback`) or they are wanted later (`.prefetch`: no origin
    /// request while a player waits).
    package var priority: ReadPriority
    /// How much of the read its caller will consume, which sizes its origin requests.
    package var extent: ReadExtent
    /// Whether a player's bytes count as served (`CacheStatistics`): not for the cache's own reads of what it
    /// parses.
    package var countsServed: Bool
    /// Whether the read's end waits until the bytes it took from memory, as they arrived, are stored, so
    /// that whoever sees it end finds them cached (a player's reads); not for a look at a resource's first
    /// bytes on the way to serving it.
    package var awaitsStoring: Bool

    /// A player's read: `extent` `.mayStopEarly` for a player that abandons reads (the default), `.whole`
    /// for one that takes every byte (an HLS segment a playlist named).
    package static func playback(_ extent: ReadExtent = .mayStopEarly) -> ReadPurpose {
        ReadPurpose(priority: .playback, extent: extent, countsServed: true, awaitsStoring: true)
    }

    /// A read of bytes wanted later: it starts no origin request while a player waits.
    package static func prefetch(_ extent: ReadExtent = .mayStopEarly) -> ReadPurpose {
        ReadPurpose(priority: .prefetch, extent: extent, countsServed: true, awaitsStoring: true)
    }

    /// The cache's own read of bytes it parses (a playlist, a format's header), read whole and not counted
    /// as served; `awaitsStoring` false for a look on the way to serving the resource, which returns as soon
    /// as the bytes arrived.
    package static func look(priority: ReadPriority = .playback, awaitsStoring: Bool = true) -> ReadPurpose {
        ReadPurpose(priority: priority, extent: .whole, countsServed: false, awaitsStoring: awaitsStoring)
    }

    /// Whether the bytes are handed to a player now: only they count as served.
    var servesPlayer: Bool { countsServed && priority == .playback }
}
