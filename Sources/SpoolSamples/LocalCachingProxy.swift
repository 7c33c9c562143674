// The Swift samples of the DocC article "The local caching proxy" (SpoolProxy.docc/LocalCachingProxy.md),
// between markers (see ReadingThroughTheCache.swift).

// sample begins
import Foundation
import Spool
import SpoolProxy

/// Plays an HLS stream through an in-process proxy: any player reads the URL it gets.
func playThroughProxy(cache: SpoolCache, play: (URL) async -> Void) async throws {
    let proxy = SpoolProxy(cache: cache, configuration: ProxyConfiguration(allowedHosts: ["cdn.example.com"]))
    try await proxy.start()  // 127.0.0.1, a free port
    let playable = try proxy.url(for: URL(string: "https://cdn.example.com/show/ep1.m3u8")!)
    await play(playable)  // mpv, VLCKit, ExoPlayer, a web view, or AVPlayer for HLS
    await proxy.stop()
    await cache.close()
}
// sample ends

// sample begins
/// What an app does when it returns to the foreground (`UIApplication.willEnterForegroundNotification`):
/// the proxy listens again, on the same port unless another program took it.
func appWillEnterForeground(proxy: SpoolProxy, previousPort: Int) async throws {
    let base = try await proxy.ensureListening()
    if base.port != previousPort {
        // Moved (`ProxyEvent.moved` says so too): make new URLs with `proxy.url(for:)` and give them to the
        // players that held the old ones.
    }
}
// sample ends

// sample begins
/// AirPlay video: while `AVPlayer.isExternalPlaybackActive` is true, the receiver fetches the stream itself,
/// from a URL on the local network that carries the proxy's token.
func airPlayStarted(proxy: SpoolProxy, hlsURL: URL, replaceItem: (URL) -> Void) async throws {
    try await proxy.shareOnLocalNetwork()  // the device's Wi-Fi address, a free port
    let shared = try proxy.sharedURL(for: hlsURL)  // http://192.168.1.20:PORT/s/<token>/o/…
    replaceItem(shared)  // AVPlayerItem(url: shared) in the player, then seek to where it was
}

/// When external playback ends: back to `proxy.url(for:)` in the player, then stop sharing.
func airPlayEnded(proxy: SpoolProxy) async {
    await proxy.stopSharingOnLocalNetwork()
}
// sample ends

// sample begins
/// A proxy whose URLs outlive a launch: the key it signs them with is made once and kept where only the app
/// reads it (`load` and `save` stand for the Keychain), so a player item restored after a relaunch still plays.
func makeProxy(cache: SpoolCache, load: () -> Data?, save: (Data) -> Void) throws -> SpoolProxy {
    let key: ProxyURLKey
    if let stored = load() {
        key = try ProxyURLKey(data: stored)
    } else {
        key = ProxyURLKey()
        save(key.data)
    }
    return SpoolProxy(cache: cache, configuration: ProxyConfiguration(urlKey: key))
}
// sample ends
