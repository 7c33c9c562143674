#if canImport(SwiftUI) && os(iOS)
import SpoolDownloads
import SwiftUI

/// Albums: tap a track to play it, or download an album to play it offline.
struct MusicView: View {
    @ObservedObject var model: ExampleModel

    var body: some View {
        NavigationView {
            List {
                ForEach(SampleCatalog.albums) { album in
                    Section {
                        ForEach(album.tracks) { track in
                            Button {
                                model.play(track)
                            } label: {
                                HStack {
                                    Text(track.title)
                                    Spacer()
                                    Text(Self.describe(model.downloadStates[track.url.absoluteString]))
                                        .foregroundColor(.secondary)
                                }
                            }
                        }
                    } header: {
                        HStack {
                            Text(album.title)
                            Spacer()
                            Button("Download") { Task { await model.download(album) } }
                        }
                    }
                }
            }
            .navigationTitle("Music")
        }
    }

    /// A download's state in a few words.
    private static func describe(_ state: DownloadState?) -> String {
        switch state {
        case nil: ""
        case .queued: "queued"
        case .waiting: "waiting"
        case .downloading(let bytes, let total): total > 0 ? "\(bytes * 100 / total)%" : "downloading"
        case .paused: "paused"
        case .completed: "offline"
        case .failed: "failed"
        }
    }
}
#endif
