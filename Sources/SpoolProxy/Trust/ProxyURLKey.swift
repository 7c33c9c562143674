import Foundation

/// The secret a proxy signs its URLs with: every URL it hands out (`url(for:)`, rewritten playlists, shared
/// URLs) carries a proof made with this key over the origin URL, and a request whose proof does not match is
/// refused with `403` before anything is fetched or read. Without one, a proxy makes a new random key when it is
/// created, so its URLs die with it (with the app's process).
///
/// An app whose proxy URLs must outlive a launch (a player item restored after relaunch, URLs written into a
/// playlist file) keeps one key: made once with `init()`, its `data` stored where only the app reads it (the
/// Keychain), given back with `init(data:)` at each launch. Anyone holding the key can make the proxy fetch any
/// origin with the app's credentials: never log it, send it anywhere or put it in a URL.
public struct ProxyURLKey: Sendable {
    /// The key's bytes: 32 random ones for a new key.
    public let data: Data

    /// The fewest bytes a key may have: 256 bits, the hash's own size.
    public static let minimumByteCount = 32

    /// A new key of 32 bytes from the system's random source.
    public init() {
        var generator = SystemRandomNumberGenerator()
        data = Data((0..<Self.minimumByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The key stored as `data`; throws `ProxyError.invalidURLKey` when it is shorter than 32 bytes.
    public init(data: Data) throws {
        guard data.count >= Self.minimumByteCount else {
            throw ProxyError.invalidURLKey("\(data.count) bytes, at least \(Self.minimumByteCount) are needed")
        }
        self.data = data
    }
}
