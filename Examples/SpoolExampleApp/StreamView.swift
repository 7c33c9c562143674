#if canImport(SwiftUI) && os(iOS)
import AVKit
import SwiftUI

/// An HLS stream played through the local caching proxy: playlists are rewritten to the proxy, segments
/// cached as they play and read ahead.
struct StreamView: View {
    @ObservedObject var model: ExampleModel
    @State private var player: AVPlayer?

    var body: some View {
        Group {
            if let player {
                PlayerView(player: player)
            } else {
                ProgressView()
            }
        }
        .onAppear {
            guard player == nil, let url = model.streamURL() else { return }
            player = AVPlayer(url: url)
        }
        .onDisappear { player?.pause() }
    }
}
#endif
