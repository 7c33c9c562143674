// The Swift sample of the DocC article "Preloading a feed" (Spool.docc/PreloadingAFeed.md), between markers
// (see ReadingThroughTheCache.swift).
import Foundation
import Spool

// sample begins
/// Keeps the items around the one playing preloaded, and follows the user's swipes.
func preload(_ videoURLs: [URL], cache: SpoolCache, swipes: AsyncStream<Int>) async {
    let preloader = SpoolPreloader(cache: cache)
    preloader.setItems(videoURLs.map { PreloadItem(url: $0) }, current: 0)  // or asset.preloadItem()
    let events = Task {
        for await event in preloader.events() { print(event.itemID, event.state) }  // queued, loading, loaded…
    }
    for await index in swipes {
        preloader.setCurrent(index)
    }
    print(preloader.totals)  // bytes preloaded, of those played, wasted
    events.cancel()
    await preloader.stop()
}
// sample ends

// sample begins
/// A preloader that follows the app's own "preload on cellular" setting as well as Low Data Mode.
func preloader(for cache: SpoolCache, onCellular: Bool) -> SpoolPreloader {
    var configuration = PreloadConfiguration()
    configuration.rules.allowsExpensiveNetwork = onCellular
    return SpoolPreloader(cache: cache, configuration: configuration)
}
// sample ends
