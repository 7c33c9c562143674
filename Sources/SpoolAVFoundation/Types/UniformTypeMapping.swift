import Foundation

/// The uniform type identifier AVFoundation expects in `contentType`, from a MIME type.
///
/// Hard-coded: `UTType(mimeType:)` does not exist on Linux and answers wrongly for some audio types. When
/// the server sends nothing useful (`application/octet-stream`, or a type not listed), the file
/// extension decides.
package enum UniformTypeMapping {
    /// The UTI of HLS playlists, which `SpoolAsset` refuses (they play through `SpoolProxy`).
    package static let playlistType = "public.m3u-playlist"

    static let byMIMEType: [String: String] = [
        "audio/mpeg": "public.mp3",
        "audio/mp3": "public.mp3",
        "audio/mp4": "public.mpeg-4-audio",
        "audio/x-m4a": "com.apple.m4a-audio",
        "video/mp4": "public.mpeg-4",
        "video/quicktime": "com.apple.quicktime-movie",
        "video/x-m4v": "com.apple.m4v-video",
        "audio/aac": "public.aac-audio",
        "audio/wav": "com.microsoft.waveform-audio",
        "audio/x-wav": "com.microsoft.waveform-audio",
        "audio/x-aiff": "public.aiff-audio",
        "audio/flac": "org.xiph.flac",
        "application/vnd.apple.mpegurl": "public.m3u-playlist",
        "application/x-mpegurl": "public.m3u-playlist",
        "audio/mpegurl": "public.m3u-playlist",
        "audio/x-mpegurl": "public.m3u-playlist",
        "video/mp2t": "public.mpeg-2-transport-stream",
    ]

    static let byExtension: [String: String] = [
        "mp3": "public.mp3",
        "m4a": "com.apple.m4a-audio",
        "mp4": "public.mpeg-4",
        "mov": "com.apple.quicktime-movie",
        "m4v": "com.apple.m4v-video",
        "aac": "public.aac-audio",
        "wav": "com.microsoft.waveform-audio",
        "aif": "public.aiff-audio",
        "aiff": "public.aiff-audio",
        "flac": "org.xiph.flac",
        "m3u8": "public.m3u-playlist",
        "m3u": "public.m3u-playlist",
        "ts": "public.mpeg-2-transport-stream",
    ]

    /// The UTI for `mimeType` (parameters ignored), else for `url`'s extension; `nil` when neither is known.
    package static func uniformType(mimeType: String?, url: URL) -> String? {
        if let mimeType {
            let bare =
                mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            if let known = byMIMEType[bare] { return known }
        }
        return byExtension[url.pathExtension.lowercased()]
    }
}
