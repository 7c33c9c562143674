#if canImport(SwiftUI) && os(iOS)
import AVKit
import SwiftUI

/// The feed: one clip per page, the one on screen playing, the next ones preloaded.
struct FeedView: View {
    @ObservedObject var model: ExampleModel
    @State private var current = 0

    var body: some View {
        if let problem = model.problem {
            Text(problem).padding()
        } else {
            TabView(selection: $current) {
                ForEach(SampleCatalog.feed.indices, id: \.self) { index in
                    Group {
                        if index == current {
                            PlayerView(player: model.feedPlayer)
                        } else {
                            Color.black
                        }
                    }
                    .tag(index)
                }
            }
            .tabViewStyle(.page(indexDisplayMode: .never))
            .onChange(of: current) { index in model.showFeedItem(index) }
        }
    }
}
#endif
