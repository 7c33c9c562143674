import Foundation

/// What Common Media Client Data (CMCD, `CommonMediaClientData`) Spool's origin requests carry.
///
/// On by default: a cache between a player and its CDN that dropped the player's CMCD would blind the CDN's
/// view of its viewers, and one that sent its own prefetches unlabelled would make them look like the
/// viewers' requests (a stall's request and a background fill would read the same). Headers by default, so a
/// signed URL and the CDN's cache key stay as they are. An origin that is not a CDN ignores the fields.
public struct ClientDataPolicy: Sendable, Hashable {
    /// The custom key that says why Spool fetched ahead of playback: `"prefetch"`, `"preload"`, `"download"` or
    /// `"read-ahead"` (the proxy's HLS read-ahead).
    public static let purposeKey = "io.spool-purpose"

    /// Whether a player's CMCD (a proxy request's `CMCD` query item or `CMCD-*` fields, an AVPlayer loading
    /// request's fields) goes with the origin requests that serve its reads.
    public var passesThrough: Bool
    /// Whether Spool's own requests ahead of playback (prefetch, preload, download, read-ahead) carry CMCD that
    /// says so: `purposeKey`, the object type where known, the session id of the player last seen on the
    /// same resource, and for a preload CMCD version 2's player state "preloading" (`sta=d`, with `v=2`).
    public var labelsOwnRequests: Bool
    /// How the data goes with a request.
    public var transmission: CommonMediaClientData.Transmission
    /// Keys never sent (an app that does not want the CDN to see `sid`, say).
    public var excludedKeys: Set<String>

    /// A policy; by default the players' data passes, Spool's own requests are labelled, in headers.
    public init(
        passesThrough: Bool = true, labelsOwnRequests: Bool = true,
        transmission: CommonMediaClientData.Transmission = .headers, excludedKeys: Set<String> = []
    ) {
        self.passesThrough = passesThrough
        self.labelsOwnRequests = labelsOwnRequests
        self.transmission = transmission
        self.excludedKeys = excludedKeys
    }

    /// No CMCD at all: neither the players' nor Spool's own.
    public static let off = ClientDataPolicy(passesThrough: false, labelsOwnRequests: false)
}
