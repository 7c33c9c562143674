// The README's quick start for an offline album, between markers (see ReadingThroughTheCache.swift).
// sample begins
import Foundation
import Spool
import SpoolDownloads

/// Queues an album for offline play: Wi-Fi only, pinned from its first byte, resumed after a relaunch.
func downloadAlbum(_ tracks: [URL], cache: SpoolCache) async throws -> DownloadQueue {
    let downloads = try await DownloadQueue(cache: cache)  // reopens what an earlier launch queued
    try await downloads.add(contentsOf: tracks.map { DownloadRequest(url: $0) })
    return downloads  // downloads.events(): queued, waiting([.expensiveNetwork]), downloading, completed
}
// sample ends
