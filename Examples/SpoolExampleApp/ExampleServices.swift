#if canImport(SwiftUI) && os(iOS)
import Foundation
import Spool
import SpoolDownloads
import SpoolProxy

/// What the example opens once at launch, shared by every screen: one cache, and the proxy, preloader and
/// download queue over it.
struct ExampleServices: Sendable {
    let cache: SpoolCache
    let proxy: SpoolProxy
    let preloader: SpoolPreloader
    let downloads: DownloadQueue

    /// Opens the cache in the app's caches directory (`Library/Caches/Spool`), starts the proxy on a free
    /// loopback port and reopens the download queue an earlier launch left.
    static func open() async throws -> ExampleServices {
        let cache = try SpoolCache(configuration: SpoolConfiguration())
        let proxy = SpoolProxy(cache: cache, configuration: ProxyConfiguration(allowedHosts: SampleCatalog.hosts))
        try await proxy.start()
        let downloads = try await DownloadQueue(cache: cache)
        return ExampleServices(
            cache: cache, proxy: proxy, preloader: SpoolPreloader(cache: cache), downloads: downloads)
    }
}
#endif
