import Foundation

/// What the engine has measured of the network path to one origin host, from its own responses.
struct LinkEstimate: Sendable, Hashable {
    /// The shortest wait seen lately from sending a request to its response head: about one round trip
    /// plus the server's time. `nil` before the first response.
    var roundTrip: TimeInterval?
    /// The rate at which response bodies arrived from the host lately, all of them together, in bytes per
    /// second. `nil` before enough bytes arrived to tell.
    var bytesPerSecond: Double?
    /// Connections to the host that are likely open and idle, so that a request sent now needs no handshake.
    var spareConnections = 0
    /// What a request on a new connection waits beyond `roundTrip` for its response head: the handshakes
    /// (TCP's round trip, and TLS's over HTTPS), measured where possible, about zero where the transport
    /// multiplexes requests on one connection (HTTP/2). `nil` with `roundTrip`.
    var connectionSetup: TimeInterval?
    /// The fastest a single response lately delivered its body, counted from when its request was sent, in
    /// bytes per second: a lower bound of the link's rate that every response gives, while `bytesPerSecond`
    /// needs tens of milliseconds of body time. On loopback or a fast LAN a whole response takes less than
    /// a millisecond, so without this the rate stayed unknown for megabytes. `nil` before the first body.
    var deliveryBytesPerSecond: Double?
    /// Whether the host's latest response came over a connection shared by several requests (HTTP/2), as
    /// its transport said: connections are then not what a new request waits for.
    var multiplexed = false
    /// With `multiplexed`, what a new stream there carries before the client's first window update.
    var initialStreamWindow = OriginReadResponse.defaultStreamWindow
    /// Whether the origin's bodies stop arriving while unread (`Origin.readsPauseWhileUnread`): a read may then
    /// ask for all it needs at once and hold the body back ahead of its reader. The origin's, not the
    /// monitor's: `EntryContext.linkEstimate()` sets it.
    var pausesWhileUnread = false
}
