#if canImport(SwiftUI) && os(iOS)
import AVKit
import SwiftUI

/// AVKit's player controller in SwiftUI. (SwiftUI's own `VideoPlayer` lives in AVKit's SwiftUI overlay,
/// which the SDK the example is compiled against on Linux leaves out; this works the same on every iOS.)
struct PlayerView: UIViewControllerRepresentable {
    let player: AVPlayer

    func makeUIViewController(context: Context) -> AVPlayerViewController {
        let controller = AVPlayerViewController()
        controller.player = player
        return controller
    }

    func updateUIViewController(_ controller: AVPlayerViewController, context: Context) {
        if controller.player !== player { controller.player = player }
    }
}
#endif
