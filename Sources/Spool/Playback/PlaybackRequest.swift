import Foundation

/// One request of a player's for an item being reported (`PlaybackRecording`): the read sessions that serve
/// it tell it what they served and how long they waited for the origin; it counts as one request, from the
/// cache or from the origin, when it ends (`end()`, or when it is released).
package final class PlaybackRequest: Sendable {
    private let recording: PlaybackRecording
    /// Whether the origin was needed; `nil` once the request was counted.
    private let usedOrigin = LockedBox<Bool?>(false)

    init(recording: PlaybackRecording) {
        self.recording = recording
    }

    deinit {
        end()
    }

    /// The bytes of `range` of the resource with key `key` reached the player, `fresh` of them from the origin.
    package func served(key: String, range: Range<Int64>, fresh: Int64) {
        if fresh > 0 { usedOrigin.withLock { if $0 != nil { $0 = true } } }
        recording.served(key: key, range: range, fresh: fresh)
    }

    /// A read for the request waited for the origin from `began` to `ended` (uptime).
    func waited(from began: TimeInterval, to ended: TimeInterval) {
        usedOrigin.withLock { if $0 != nil { $0 = true } }
        recording.waited(from: began, to: ended)
    }

    /// The player sent `data` (its CMCD) with the request: a player that sends it says when its buffer ran dry
    /// since its last request (`bs`), which counts as a stall where the player reports none otherwise.
    package func playerSent(_ data: CommonMediaClientData?) {
        guard let data else { return }
        recording.clientDataReceived(starved: data.entries["bs"] != nil)
    }

    /// A media response started (see `PlaybackRecording.mediaStarted`).
    package func mediaStarted() {
        recording.mediaStarted()
    }

    /// Counts the request, once.
    package func end() {
        guard
            let usedOrigin = usedOrigin.withLock({ value -> Bool? in
                defer { value = nil }
                return value
            })
        else { return }
        recording.requestEnded(usedOrigin: usedOrigin)
    }
}
