import Foundation
import Spool
import XCTest

/// The playlist rewriter over a corpus: every tag that carries a URI, media lines, and everything that must
/// stay byte for byte (line ends, a byte-order mark, blank lines, comments, unknown tags, quoted commas).
final class HLSPlaylistTests: XCTestCase {
    private let base = URL(string: "https://cdn.example.com/live/stream/index.m3u8?token=abc")!

    /// Marks each URI it is given, so the expected text is easy to write.
    private func mark(_ url: URL) -> String? { "P[\(url.absoluteString)]" }

    private func rewrite(_ text: String, map: ((URL) -> String?)? = nil) throws -> HLSPlaylist {
        try XCTUnwrap(HLSPlaylist(Data(text.utf8), url: base, map: map ?? mark), "not taken for a playlist")
    }

    private func text(_ playlist: HLSPlaylist) -> String { String(decoding: playlist.data, as: UTF8.self) }

    func testMediaPlaylistWithAKeyAbsoluteAndRelativeSegments() throws {
        let source = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k1.key",IV=0x00000000000000000000000000000001
            #EXTINF:6.000,
            http://cdn.example.com/live/stream/seg0.ts
            #EXTINF:6.000,title with, a comma
            seg1.ts

            # a comment
            #EXT-X-UNKNOWN-TAG:URI="not-rewritten.ts"
            #EXTINF:4.5,
            ../other/seg2.ts?sig=a,b
            #EXT-X-ENDLIST

            """
        let playlist = try rewrite(source)
        XCTAssertEqual(
            text(playlist),
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-KEY:METHOD=AES-128,URI="P[https://keys.example.com/k1.key]",IV=0x00000000000000000000000000000001
            #EXTINF:6.000,
            P[http://cdn.example.com/live/stream/seg0.ts]
            #EXTINF:6.000,title with, a comma
            P[https://cdn.example.com/live/stream/seg1.ts]

            # a comment
            #EXT-X-UNKNOWN-TAG:URI="not-rewritten.ts"
            #EXTINF:4.5,
            P[https://cdn.example.com/live/other/seg2.ts?sig=a,b]
            #EXT-X-ENDLIST

            """)
        XCTAssertFalse(playlist.isLive)
        XCTAssertEqual(playlist.targetDuration, 6)
        XCTAssertEqual(playlist.references.count, 4)
    }

    func testMasterKeepsEveryVariantAndRenditionAndQuotedCommas() throws {
        let source = """
            #EXTM3U
            #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="/keys/session.key",KEYFORMAT="identity"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="lyrics.json"
            #EXT-X-CONTENT-STEERING:SERVER-URI="/steering?video=00012",PATHWAY-ID="CDN"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English, main",LANGUAGE="en",URI="audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Commentary",DEFAULT=NO
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=640x360,AUDIO="aac"
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aac"
            https://other.example.org/high/index.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,CODECS="avc1.4d401f",URI="low/iframe.m3u8"
            """
        let playlist = try rewrite(source)
        let host = "https://cdn.example.com"
        var expected = source
        for (from, to) in [
            ("\"/keys/session.key\"", "\"P[\(host)/keys/session.key]\""),
            ("\"lyrics.json\"", "\"P[\(host)/live/stream/lyrics.json]\""),
            ("\"/steering?video=00012\"", "\"P[\(host)/steering?video=00012]\""),
            ("\"audio/en.m3u8\"", "\"P[\(host)/live/stream/audio/en.m3u8]\""),
            ("\nlow/index.m3u8\n", "\nP[\(host)/live/stream/low/index.m3u8]\n"),
            ("\nhttps://other.example.org/high/index.m3u8\n", "\nP[https://other.example.org/high/index.m3u8]\n"),
            ("\"low/iframe.m3u8\"", "\"P[\(host)/live/stream/low/iframe.m3u8]\""),
        ] {
            XCTAssertTrue(expected.contains(from), from)
            expected = expected.replacingOccurrences(of: from, with: to)
        }
        XCTAssertEqual(text(playlist), expected)
        XCTAssertFalse(playlist.isLive, "a master playlist is not a live media playlist")
        XCTAssertNil(playlist.targetDuration)
    }

    func testFragmentedMP4ByteRangesAndLowLatencyTags() throws {
        let source = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PART-INF:PART-TARGET=1.0
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="720@0"
            #EXTINF:4.0,
            #EXT-X-BYTERANGE:100000@720
            main.mp4
            #EXT-X-PART:DURATION=1.0,URI="part1.mp4",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part2.mp4"
            #EXT-X-RENDITION-REPORT:URI="../alt/index.m3u8",LAST-MSN=7,LAST-PART=2
            """
        let playlist = try rewrite(source)
        XCTAssertEqual(
            text(playlist),
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PART-INF:PART-TARGET=1.0
            #EXT-X-MAP:URI="P[https://cdn.example.com/live/stream/main.mp4]",BYTERANGE="720@0"
            #EXTINF:4.0,
            #EXT-X-BYTERANGE:100000@720
            P[https://cdn.example.com/live/stream/main.mp4]
            #EXT-X-PART:DURATION=1.0,URI="P[https://cdn.example.com/live/stream/part1.mp4]",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="P[https://cdn.example.com/live/stream/part2.mp4]"
            #EXT-X-RENDITION-REPORT:URI="P[https://cdn.example.com/live/alt/index.m3u8]",LAST-MSN=7,LAST-PART=2
            """)
        XCTAssertTrue(playlist.isLive, "no EXT-X-ENDLIST")
        XCTAssertEqual(playlist.targetDuration, 4)
    }

    func testReferencesSayWhatEachURIIs() throws {
        let master = try rewrite(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English, main",URI="audio/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="aud",CODECS="avc1.4d401e,mp4a.40.2"
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2400000,RESOLUTION=1280x720,AUDIO="aud"
            high.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,URI="iframes.m3u8"
            """)
        XCTAssertEqual(master.references.map(\.role), [.rendition, .variant, .variant, .iFrameVariant])
        XCTAssertEqual(master.references[0].attributes["NAME"], "English, main")
        XCTAssertEqual(master.references[0].attributes["GROUP-ID"], "aud")
        XCTAssertEqual(master.references[1].attributes["CODECS"], "avc1.4d401e,mp4a.40.2")
        XCTAssertEqual(master.references[2].bandwidth, 2_400_000)
        XCTAssertEqual(master.references[2].resolution?.height, 720)
        XCTAssertEqual(master.references[2].attributes["AUDIO"], "aud")

        let media = try rewrite(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="720"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="key.bin"
            #EXTINF:3.5,first
            #EXT-X-BYTERANGE:1000@720
            main.mp4
            #EXTINF:4,
            #EXT-X-BYTERANGE:500
            main.mp4
            #EXTINF:2.25,
            tail.ts
            #EXT-X-ENDLIST
            """)
        XCTAssertEqual(media.references.map(\.role), [.initSection, .key, .segment, .segment, .segment])
        XCTAssertEqual(media.references[0].byteRange, 0..<720, "a map's range without an offset starts at 0")
        XCTAssertEqual(media.references[1].attributes["METHOD"], "SAMPLE-AES")
        XCTAssertEqual(media.references[2].byteRange, 720..<1720)
        XCTAssertEqual(media.references[3].byteRange, 1720..<2220, "without an offset: after the previous range")
        XCTAssertNil(media.references[4].byteRange)
        XCTAssertEqual(media.references.compactMap(\.duration), [3.5, 4, 2.25])
    }

    func testLineEndsByteOrderMarkAndSurroundingSpacesStay() throws {
        let source = "\u{FEFF}#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n#EXTINF:10,\r\n  seg.ts  \r\n\r\n#EXT-X-ENDLIST"
        let playlist = try rewrite(source)
        XCTAssertEqual(
            playlist.data,
            Data(
                ("\u{FEFF}#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n#EXTINF:10,\r\n"
                    + "  P[https://cdn.example.com/live/stream/seg.ts]  \r\n\r\n#EXT-X-ENDLIST").utf8))
        XCTAssertEqual(Array(playlist.data.prefix(3)), [0xEF, 0xBB, 0xBF])
    }

    func testWhatIsNotFetchedOverHTTPOrNotAllowedStaysAsWritten() throws {
        let source = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://fairplay-key-id",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXT-X-KEY:METHOD=AES-128,URI="data:text/plain;base64,AAAAAAAAAAAAAAAAAAAAAA=="
            #EXTINF:6,
            https://elsewhere.example.net/seg.ts
            #EXTINF:6,
            seg.ts
            #EXT-X-KEY:METHOD=AES-128,URI="unclosed.key
            """
        let allowedHost = "cdn.example.com"
        let playlist = try rewrite(source) { $0.host == allowedHost ? "P" : nil }
        XCTAssertEqual(
            text(playlist),
            source.replacingOccurrences(of: "\nseg.ts\n", with: "\nP\n")
                .replacingOccurrences(of: "URI=\"unclosed.key", with: "URI=\"P"))
        XCTAssertEqual(
            playlist.references.map(\.rewritten), [false, true, true], "elsewhere, seg.ts, the unclosed key")
        XCTAssertEqual(playlist.references.first?.url.host, "elsewhere.example.net")
    }

    func testAnIdentityMapChangesNoByte() throws {
        let source = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",URI="subs/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1,SUBTITLES="subs"
            v.m3u8
            """
        let playlist = try rewrite(source) { _ in nil }
        XCTAssertEqual(playlist.data, Data(source.utf8))
        XCTAssertEqual(playlist.references.count, 2)
    }

    func testOnlyPlaylistsAreTaken() {
        XCTAssertNil(HLSPlaylist(Data("not a playlist\n#EXTM3U\n".utf8), url: base, map: mark))
        XCTAssertNil(
            HLSPlaylist(Data([0x23, 0x45, 0x58, 0x54, 0x4D, 0x33, 0x55, 0x0A, 0xFF, 0xFE]), url: base, map: mark))
        XCTAssertNil(HLSPlaylist(Data(), url: base, map: mark))
        XCTAssertTrue(HLSPlaylist.startsPlaylist(Data("#EXTM3U\n".utf8)))
        XCTAssertTrue(HLSPlaylist.startsPlaylist(Data([0xEF, 0xBB, 0xBF] + Array("#EXTM3U".utf8))))
        XCTAssertFalse(HLSPlaylist.startsPlaylist(Data("#EXTM".utf8)))
        XCTAssertTrue(HLSPlaylist.isPlaylistType("application/vnd.apple.mpegurl"))
        XCTAssertTrue(HLSPlaylist.isPlaylistType("Application/X-MPEGURL; charset=utf-8"))
        XCTAssertTrue(HLSPlaylist.isPlaylistType("audio/mpegurl"))
        XCTAssertFalse(HLSPlaylist.isPlaylistType("video/mp2t"))
        XCTAssertFalse(HLSPlaylist.isPlaylistType(nil))
        XCTAssertTrue(HLSPlaylist.isPlaylistType(" \taudio/x-mpegURL \t;charset=utf-8"))
        XCTAssertFalse(HLSPlaylist.isPlaylistType("audio/mpegurl2"))
        XCTAssertFalse(HLSPlaylist.isPlaylistType("audio/mpegur"))
        XCTAssertFalse(HLSPlaylist.isPlaylistType("audio/mpeg url"))
        XCTAssertFalse(HLSPlaylist.isPlaylistType(""))
    }

    func testAHugePlaylistIsRewrittenWhole() throws {
        var source = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n"
        for index in 0..<20000 { source += "#EXTINF:2.0,\nsegment-\(index).ts\n" }
        source += "#EXT-X-ENDLIST\n"
        let playlist = try rewrite(source)
        XCTAssertEqual(playlist.references.count, 20000)
        XCTAssertTrue(playlist.references.allSatisfy(\.rewritten))
        XCTAssertTrue(
            text(playlist).hasSuffix("P[https://cdn.example.com/live/stream/segment-19999.ts]\n#EXT-X-ENDLIST\n"))
    }
}
