import Foundation

/// What one resource's origin requests say in CMCD (`ClientDataPolicy`): the data of the player that read it
/// last, and why the last fetch ahead of playback runs. A resource is played by one player at a time, so the
/// player's latest data describes the requests that serve it; a cache that kept data per reader would send
/// the same.
struct ClientDataSources: Sendable {
    /// The latest player's data (`nil`: the player sent none).
    private var player: CommonMediaClientData?
    /// Why the latest read ahead of playback runs.
    private var ahead: TransferPurpose = .prefetch
    /// Whether the latest read was a player's: the first request of a resource serves the read that opened it.
    private var lastWasPlayer = true

    /// A read opened: a player's with its data, or one ahead of playback for `ahead`.
    mutating func note(player isPlayer: Bool, data: CommonMediaClientData?, ahead: TransferPurpose?) {
        lastWasPlayer = isPlayer
        if isPlayer {
            player = data
        } else {
            self.ahead = ahead ?? .prefetch
        }
    }

    /// The data of a request that serves a player (`forPlayer`; `nil`: whoever read last) under `policy`;
    /// `nil` for none. A player's data loses the keys that describe its next request, which the cache makes
    /// itself, and its measured throughput (`mtp`) becomes the cache's of the origin (`originBytesPerSecond`;
    /// none when unknown): the player measured its link to the cache, which may be a loopback socket or its
    /// own disk. Spool's own label says why it fetches, what (`mimeType`) and for which session.
    func data(forPlayer: Bool?, policy: ClientDataPolicy, mimeType: String?, originBytesPerSecond: Double? = nil)
        -> CommonMediaClientData?
    {
        let data: CommonMediaClientData?
        if forPlayer ?? lastWasPlayer {
            var passed = policy.passesThrough ? player?.removing(["nor", "nrr"]) : nil
            if passed?.entries["mtp"] != nil {
                passed = passed?.setting("mtp", to: originBytesPerSecond.map(Self.throughputValue))
            }
            data = passed
        } else if policy.labelsOwnRequests {
            var own = CommonMediaClientData().setting(ClientDataPolicy.purposeKey, to: "\"\(ahead)\"")
            own = own.setting("ot", to: mimeType.flatMap(Self.objectType))
            // CMCD version 2's player state "preloading" (`sta=d`: loading ahead of a start, for a fast one) is
            // what a preload is; the other fetches ahead have no state of their own (a download is no playback).
            if ahead == .preload { own = own.setting("sta", to: "d").setting("v", to: "2") }
            // The session and content of the player last seen on the resource: the CDN joins the fill to it.
            for key in ["sid", "cid", "sf", "st"] { own = own.setting(key, to: player?.entries[key]) }
            data = own
        } else {
            data = nil
        }
        guard var data = data?.removing(policy.excludedKeys), !data.entries.isEmpty else { return nil }
        data.transmission = policy.transmission
        return data
    }

    /// CMCD's `mtp` for a rate in bytes per second: kilobits per second, rounded to the nearest 100.
    private static func throughputValue(_ bytesPerSecond: Double) -> String {
        String(Int((bytesPerSecond * 8 / 100_000).rounded()) * 100)
    }

    /// CMCD's object type of a MIME type: `m` a manifest, `v` video, `a` audio, `k` a key, `o` other.
    private static func objectType(_ mimeType: String) -> String {
        let type = mimeType.lowercased()
        if type.contains("mpegurl") || type.contains("dash+xml") { return "m" }
        if type.hasPrefix("video/") { return "v" }
        if type.hasPrefix("audio/") { return "a" }
        return "o"
    }
}
