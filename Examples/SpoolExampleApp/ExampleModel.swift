#if canImport(SwiftUI) && os(iOS)
import AVFoundation
import Foundation
import Spool
import SpoolAVFoundation
import SpoolDownloads

/// The example's state: the services once open, the players, the download states and the playback reports
/// the screens show.
@MainActor
final class ExampleModel: ObservableObject {
    /// The services, once `start()` opened them.
    @Published private(set) var services: ExampleServices?
    /// Why they could not be opened.
    @Published private(set) var problem: String?
    /// Each download's latest state, by its id (the track's URL).
    @Published private(set) var downloadStates: [String: DownloadState] = [:]
    /// The latest playback reports, newest first, and their summary.
    @Published private(set) var reports: [PlaybackReport] = []
    @Published private(set) var summary: PlaybackSummary?

    /// The player of the feed, and the one of the music list.
    let feedPlayer = AVPlayer()
    let musicPlayer = AVPlayer()
    private var feedAssets: [SpoolAsset] = []

    /// Opens the services, then follows the downloads and the playback reports while the app runs.
    func start() async {
        guard services == nil else { return }
        let services: ExampleServices
        do {
            services = try await ExampleServices.open()
        } catch {
            problem = "\(error)"
            return
        }
        self.services = services
        feedAssets = SampleCatalog.feed.map { SpoolAsset(url: $0, cache: services.cache) }
        // The preloader keeps the clips around the one on screen cached; what it preloads is what they play.
        services.preloader.setItems(feedAssets.map { $0.preloadItem() }, current: 0)
        showFeedItem(0)
        for item in services.downloads.items { downloadStates[item.request.id] = item.state }
        await refreshReports()
        async let downloads: Void = followDownloads(services.downloads)
        async let reports: Void = followReports(services.cache)
        _ = await (downloads, reports)
    }

    /// Plays clip `index` of the feed and moves the preloader's window there.
    func showFeedItem(_ index: Int) {
        guard feedAssets.indices.contains(index), let services else { return }
        let asset = feedAssets[index]
        let item = AVPlayerItem(asset: asset)
        asset.reportPlayback(of: item)  // startup and stalls join the cache's playback report
        feedPlayer.replaceCurrentItem(with: item)
        feedPlayer.play()
        services.preloader.setCurrent(index)
    }

    /// Plays `track` through the cache: offline too, once its album is downloaded.
    func play(_ track: SampleCatalog.Track) {
        guard let services else { return }
        let asset = SpoolAsset(url: track.url, cache: services.cache)
        let item = AVPlayerItem(asset: asset)
        asset.reportPlayback(of: item)
        musicPlayer.replaceCurrentItem(with: item)
        musicPlayer.play()
    }

    /// Queues every track of `album` for offline play.
    func download(_ album: SampleCatalog.Album) async {
        guard let services else { return }
        let requests = album.tracks.map { DownloadRequest(url: $0.url, id: $0.url.absoluteString, title: $0.title) }
        do {
            try await services.downloads.add(contentsOf: requests)
        } catch {
            problem = "\(error)"
        }
    }

    /// The proxy's URL of the HLS stream, for any player.
    func streamURL() -> URL? {
        try? services?.proxy.url(for: SampleCatalog.stream)
    }

    private func followDownloads(_ downloads: DownloadQueue) async {
        for await event in downloads.events() {
            downloadStates[event.id] = event.state
        }
    }

    private func followReports(_ cache: SpoolCache) async {
        for await _ in cache.playback.reports() {
            await refreshReports()
        }
    }

    private func refreshReports() async {
        guard let cache = services?.cache else { return }
        let recent = await cache.playback.recent()
        reports = recent.reversed()
        summary = PlaybackSummary(recent)
    }
}
#endif
