import Foundation
import SpoolTesting

/// What every scenario shares: a temporary directory of generated files, nginx serving it directly (the
/// origin of every proxy and the near-physical reference on loopback), and the tools.
final class BenchRig {
    /// The served files, by role.
    enum File: String, CaseIterable {
        case throughput = "throughput.bin"
        case firstByte = "first-byte.bin"
        case session = "session.bin"
        case memory = "memory.bin"
        case video = "clip.mp4"
        case videoFaststart = "clip-faststart.mp4"
        case link = "link.bin"
        /// The browser's clip: H.264 with its index first, which Chromium plays (`prepareBrowserPlay`).
        case browserVideo = "clip-h264.mp4"
        /// The page that plays it and reports when it plays.
        case browserPage = "play.html"
    }

    let plan: BenchPlan
    let tools: BenchTools
    let curl: CurlClient
    let origin: NginxOrigin
    /// How the origin speaks (the loopback scenarios use plain HTTP).
    let originKind: BenchOrigin
    /// The authority of an HTTPS origin's certificate, which every client in the run trusts.
    let authority: TestCertificateAuthority?
    private let root: URL
    private(set) var sizes: [File: Int64] = [:]

    /// Writes the files (the videos with ffmpeg) and starts the origin; `linkFileBytes` is the size of the
    /// file the link benchmarks read, `originKind` how the origin speaks; `behindLink` when every client
    /// reaches the origin across an emulated link.
    init(
        plan: BenchPlan, tools: BenchTools, linkFileBytes: Int64 = 4 << 20, originKind: BenchOrigin = BenchOrigin(),
        behindLink: Bool = false, progress: (String) -> Void
    ) throws {
        self.originKind = originKind
        self.plan = plan
        self.tools = tools
        curl = CurlClient(command: tools.curl)
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let generated: [(File, Int64)] = [
            (.throughput, plan.throughputBytes), (.firstByte, 4 << 20), (.session, plan.sessionBytes),
            (.memory, plan.memoryBytes), (.link, linkFileBytes),
        ]
        for (index, (file, length)) in generated.enumerated() {
            progress("writing \(file.rawValue) (\(ByteCountText.format(length)))")
            try TestContent.writeGenerated(
                seed: UInt64(index + 1), length: length, to: Self.localURL(of: file, in: root))
            sizes[file] = length
        }
        progress("encoding \(File.video.rawValue) (\(plan.videoSeconds) s) with ffmpeg")
        try Self.encodeVideo(
            ffmpeg: tools.ffmpeg, seconds: plan.videoSeconds, to: Self.localURL(of: .video, in: root))
        sizes[.video] = Self.size(of: Self.localURL(of: .video, in: root))
        try Self.moveIndexToTheFront(
            ffmpeg: tools.ffmpeg, of: Self.localURL(of: .video, in: root),
            to: Self.localURL(of: .videoFaststart, in: root))
        sizes[.videoFaststart] = Self.size(of: Self.localURL(of: .videoFaststart, in: root))
        progress("encoding an HLS stream (\(plan.videoSeconds) s) with ffmpeg")
        try Self.encodeHLS(
            ffmpeg: tools.ffmpeg, seconds: plan.videoSeconds,
            into: root.appendingPathComponent(Self.hlsDirectory, isDirectory: true))
        let authority = originKind.kind == .http ? nil : try TestCertificateAuthority()
        self.authority = authority
        origin = try NginxOrigin(
            serving: root, executable: tools.nginx, tls: authority.flatMap(originKind.nginxTLS(authority:)),
            sendBufferBytes: behindLink ? BenchOrigin.sendBufferBehindLink : nil)
    }

    /// PEM files of the authorities a client must trust to read the origin.
    var trustRoots: [URL] { authority.map { [$0.certificateFile] } ?? [] }

    static let hlsDirectory = "hls"

    /// The path of the HLS stream's media playlist under a name of its own (`name`): a directory link to the
    /// one stream, so that its playlist and segments are new entries in a cache however often it is played.
    func hlsPlaylistPath(_ name: String) throws -> String {
        let link = root.appendingPathComponent("\(Self.hlsDirectory)-\(name)")
        if !FileManager.default.fileExists(atPath: link.path) {
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: Self.hlsDirectory)
        }
        return "/\(Self.hlsDirectory)-\(name)/index.m3u8"
    }

    deinit {
        origin.stop()
        try? FileManager.default.removeItem(at: root)
    }

    func size(_ file: File) -> Int64 { sizes[file] ?? 0 }

    /// The file's URL on the origin, with `query` (a distinct query string makes a distinct cache entry in
    /// both proxies while nginx serves the same file).
    func originURL(_ file: File, query: String? = nil) -> URL {
        origin.url(for: "/" + file.rawValue + (query.map { "?" + $0 } ?? ""))
    }

    /// The path of `file`'s local copy, which the origin serves.
    func localPath(_ file: File) -> String {
        Self.localURL(of: file, in: root).path
    }

    /// Where `file`'s local copy lives in the rig's directory `root`.
    private static func localURL(of file: File, in root: URL) -> URL {
        root.appendingPathComponent(file.rawValue)
    }

    /// The file's URL for the nginx direct reference. Its query marks it in the origin's access log, so the
    /// reference's own reads never count as a proxy's origin traffic; nginx ignores it when serving a file.
    func directURL(_ file: File) -> URL {
        originURL(file, query: Self.directQuery)
    }

    private static let directQuery = "reference=direct"

    /// Reads `url` whole with the raw client (curl's own ceiling on loopback is lower than nginx's) and returns
    /// bytes per second, connection set-up included; fails unless exactly `expected` bytes came with 200.
    func throughput(_ url: URL, expected: Int64) throws -> Double {
        let transfer = try RangeReader(port: url.port ?? 80).get(RangeReader.target(of: url), range: nil, limit: nil)
        guard transfer.status == 200, transfer.bodyBytes == expected else {
            throw CommandFailure(
                message: "\(url.absoluteString): status \(transfer.status), \(transfer.bodyBytes) of \(expected) bytes")
        }
        return Double(expected) / transfer.total
    }

    /// Body bytes the proxies made the origin send for `file` (whatever the query, the reference's reads
    /// excepted), once its log has been quiet for `quiet`
    /// seconds: nginx logs a response only when it ends, and a proxy may still be finishing one.
    func originBytes(_ file: File, quiet: TimeInterval = 0.5) throws -> Int64 {
        try settledCount(quiet: quiet) { try loggedBytes(file) }
    }

    private func loggedBytes(_ file: File) throws -> Int64 {
        let path = "/" + file.rawValue
        return try origin.accessLog()
            .filter { ($0.path == path || $0.path.hasPrefix(path + "?")) && !$0.path.hasSuffix("?" + Self.directQuery) }
            .reduce(0) { $0 + $1.bodyBytesSent }
    }

    /// An MP4 with its index (`moov`) at the end, ffmpeg's default, so a player reads the start, jumps to
    /// the tail and comes back: the pattern that stalls a proxy serving strictly in order.
    private static func encodeVideo(ffmpeg: ExternalCommand, seconds: Int, to file: URL) throws {
        let output = try ffmpeg.run(
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "\(seconds)",
                "-c:v", "mpeg4", "-q:v", "3", "-pix_fmt", "yuv420p", file.path,
            ],
            timeout: 300)
        guard output.status == 0 else {
            throw CommandFailure(message: "ffmpeg could not encode the test video: \(output.stderr)")
        }
    }

    /// The same picture as a VOD HLS stream of 2-second MPEG-TS segments (MPEG-2 video: MPEG-4 part 2 copied
    /// into TS loses the headers a decoder needs) with relative URIs.
    private static func encodeHLS(ffmpeg: ExternalCommand, seconds: Int, into directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let output = try ffmpeg.run(
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "\(seconds)",
                "-c:v", "mpeg2video", "-q:v", "3", "-g", "25", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
                "-hls_playlist_type", "vod", directory.appendingPathComponent("index.m3u8").path,
            ], timeout: 300)
        guard output.status == 0 else {
            throw CommandFailure(message: "ffmpeg could not encode the HLS stream: \(output.stderr)")
        }
    }

    /// Writes what the browser scenario plays: a 6-second H.264 clip with its index first (Chromium plays
    /// neither MPEG-4 part 2 nor MPEG-2 video) and a page that plays the URL its `src` parameter names, muted,
    /// and reports through a request to `/report` on its own origin how many milliseconds passed from setting
    /// the source to the `playing` event (or the media error), with its `tag` parameter.
    func prepareBrowserPlay() throws {
        let clip = root.appendingPathComponent(File.browserVideo.rawValue)
        let output = try tools.ffmpeg.run(
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25", "-t", "6", "-c:v",
                "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart", clip.path,
            ], timeout: 300)
        guard output.status == 0 else {
            throw CommandFailure(message: "ffmpeg could not encode the browser's H.264 clip: \(output.stderr)")
        }
        sizes[.browserVideo] = Self.size(of: clip)
        let page = """
            <!doctype html><meta charset="utf-8"><title>spool bench</title>
            <video id="video" muted autoplay playsinline></video>
            <script>
            const query = new URLSearchParams(location.search);
            const video = document.getElementById("video");
            const report = (what) => {
              new Image().src = "/report?" + what + "&tag=" + encodeURIComponent(query.get("tag"));
            };
            const start = performance.now();
            video.addEventListener("playing", () => report("ms=" + (performance.now() - start)), { once: true });
            video.addEventListener("error", () => report("error=" + (video.error ? video.error.code : 0)));
            video.src = query.get("src");
            </script>
            """
        try Data(page.utf8).write(to: root.appendingPathComponent(File.browserPage.rawValue))
    }

    /// The same video with its index first (`-movflags +faststart`), as streaming services publish it.
    private static func moveIndexToTheFront(ffmpeg: ExternalCommand, of input: URL, to file: URL) throws {
        let output = try ffmpeg.run(
            ["-v", "error", "-y", "-i", input.path, "-c", "copy", "-movflags", "+faststart", file.path], timeout: 300)
        guard output.status == 0 else {
            throw CommandFailure(message: "ffmpeg could not move the index: \(output.stderr)")
        }
    }

    private static func size(of file: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
