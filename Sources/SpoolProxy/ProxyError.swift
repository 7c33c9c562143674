import Foundation

/// Why a proxy cannot start or map a URL.
public enum ProxyError: Error, Sendable, CustomStringConvertible {
    /// `start()` was called twice.
    case alreadyStarted
    /// The proxy is not running.
    case notRunning
    /// The socket could not be bound (address in use, not allowed).
    case cannotListen(String)
    /// The proxy lost its socket and could not listen again (see `ProxyEvent.cannotListen`).
    case notListening(String)
    /// A `ProxyURLKey` made from bytes that cannot be one (too short).
    case invalidURLKey(String)
    /// `shareOnLocalNetwork` was called while sharing.
    case alreadySharing
    /// The device has no local network address (no Wi-Fi, no Ethernet).
    case noLocalNetwork
    /// `sharedURL(for:)` while the proxy is not shared on the local network.
    case notShared

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .alreadyStarted: "the proxy was already started"
        case .notRunning: "the proxy is not running"
        case .cannotListen(let reason): "cannot listen on \(reason)"
        case .notListening(let reason): "the proxy lost its listening socket and cannot listen again: \(reason)"
        case .invalidURLKey(let reason): "not a URL key: \(reason)"
        case .alreadySharing: "the proxy is already shared on the local network"
        case .noLocalNetwork: "no local network address (no Wi-Fi or Ethernet)"
        case .notShared: "the proxy is not shared on the local network"
        }
    }
}
