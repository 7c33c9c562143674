#if canImport(SwiftUI) && os(iOS)
import SwiftUI

/// The example app: a feed of short videos with preloading, albums to download for offline play, an HLS
/// stream through the local proxy, and what the cache did for each playback.
@main
struct SpoolExampleApp: App {
    @StateObject private var model = ExampleModel()

    var body: some Scene {
        WindowGroup {
            TabView {
                FeedView(model: model).tabItem { Label("Feed", systemImage: "play.rectangle") }
                MusicView(model: model).tabItem { Label("Music", systemImage: "music.note.list") }
                StreamView(model: model).tabItem { Label("Stream", systemImage: "antenna.radiowaves.left.and.right") }
                ReportsView(model: model).tabItem { Label("Playback", systemImage: "chart.bar") }
            }
            .task { await model.start() }
        }
    }
}
#endif
