/// Whether a read is for playback (its bytes are awaited now) or ahead of it (see `ReadPurpose`).
package enum ReadPriority: Sendable, Hashable {
    /// A player waits for these bytes.
    case playback
    /// Bytes wanted later (the next queue item's start); fetched when no playback read waits.
    case prefetch
}
