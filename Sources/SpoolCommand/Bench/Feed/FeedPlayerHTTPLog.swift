import Foundation
import Spool

/// What ffmpeg's debug log says of its HTTP exchanges (`FeedPlayer`): when it sent its first request, and when
/// the status line of its first response that is not a playlist arrived. The player's own view of the start
/// a playback report measures through the proxy (from the item's first request to its first media response),
/// read from the log lines as they come, each stamped when it came.
///
/// ffmpeg logs (at trace level) `request: GET …` as it sends a request and `header='…'` for each response header
/// line as it reads it, prefixed with its HTTP context (`[http @ 0x…]`); contexts may run side by side (an HLS
/// playlist's and a segment's), so a response's status line is matched with its `Content-Type` by context.
final class FeedPlayerHTTPLog: Sendable {
    private struct State {
        var firstRequest: Double?
        /// When each context's current response's status line came.
        var statusAt: [Substring: Double] = [:]
        var firstMedia: Double?
    }

    private let state = LockedBox(State())

    /// Seconds from the first request to the first media response's status line; `nil` until both were seen.
    var firstMediaResponse: Double? {
        state.withLock { state in
            guard let request = state.firstRequest, let media = state.firstMedia else { return nil }
            return media - request
        }
    }

    /// Takes in one log line, which came at `now`.
    func read(_ line: String, at now: Double) {
        // `http` over plain HTTP, `https` over TLS (a direct read of an HTTPS origin).
        guard line.hasPrefix("[http @ ") || line.hasPrefix("[https @ "), let close = line.firstIndex(of: "]") else {
            return
        }
        let context = line[line.index(after: line.startIndex)..<close]
        let message = line[line.index(after: close)...].drop { $0 == " " }
        state.withLock { state in
            guard state.firstMedia == nil else { return }
            if message.hasPrefix("request: ") {
                if state.firstRequest == nil { state.firstRequest = now }
            } else if message.hasPrefix("header='HTTP/") {
                state.statusAt[context] = now
            } else if message.lowercased().hasPrefix("header='content-type:"), let status = state.statusAt[context] {
                let type = message.dropFirst("header='content-type:".count).prefix { $0 != "'" && $0 != ";" }
                if !HLSPlaylist.isPlaylistType(type.trimmingCharacters(in: .whitespaces).lowercased()) {
                    state.firstMedia = status
                }
            }
        }
    }
}
