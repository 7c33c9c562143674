/// What crossed an emulated link, read at one moment; byte counts are everything on the connections (HTTP
/// heads as well as bodies), since start or the last `LinkEmulator.resetCounters()`.
public struct LinkCounters: Sendable, Hashable {
    /// Bytes the link took from the origin (upstream) side: counted when read, so bytes still in flight,
    /// which a client that gives up never receives, are included; this is what a metered link would bill.
    public var bytesFromUpstream: Int64 = 0
    /// Bytes handed to clients.
    public var bytesToClients: Int64 = 0
    /// Bytes the link took from clients.
    public var bytesFromClients: Int64 = 0
    /// Bytes handed to the origin.
    public var bytesToUpstream: Int64 = 0
    /// Client connections accepted.
    public var connectionsAccepted = 0
    /// Client connections open right now (not reset by `resetCounters()`).
    public var openConnections = 0

    /// All zero.
    public init() {}
}
