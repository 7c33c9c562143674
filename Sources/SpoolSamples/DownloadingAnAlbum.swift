// The sample of the article "Downloading for offline", between markers (see ReadingThroughTheCache.swift).
// sample begins
import Foundation
import Spool
import SpoolDownloads

/// Queues an album for offline play and prints each track's state as it changes.
func downloadAndWatch(_ album: [(url: URL, name: String)], cache: SpoolCache) async throws {
    let downloads = try await DownloadQueue(cache: cache)  // reopens what an earlier launch queued
    try await downloads.add(contentsOf: album.map { DownloadRequest(url: $0.url, title: $0.name) })
    for await event in downloads.events() { print(event.id, event.state as Any) }  // waiting, downloading…
}
// sample ends
