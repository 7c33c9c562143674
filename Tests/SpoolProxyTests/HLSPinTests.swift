import Foundation
import Spool
import SpoolDownloads
import SpoolTesting
import XCTest

/// `HLSPinning`: what playing a stream needs is pinned (the chosen variants, their renditions, keys,
/// initialization sections, segments), nothing else, and the stream then plays through the proxy with the
/// origin gone.
final class HLSPinTests: XCTestCase {
    func testAChosenVariantAndItsAudioRenditionPlayOffline() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        try await generateMaster(fixture, ffmpeg)
        let master = fixture.originURL("master.m3u8")
        let pinning = HLSPinning(cache: fixture.cache)

        let progress = ProgressEvents()
        let summary = try await pinning.pin(master, variants: .bandwidth(atMost: 500_000)) { progress.add($0) }
        XCTAssertEqual(summary.mediaPlaylists, [fixture.originURL("v0.m3u8"), fixture.originURL("v2.m3u8")])
        let names = summary.resources.map(\.lastPathComponent)
        XCTAssertEqual(names.first, "master.m3u8")
        XCTAssertTrue(names.contains("v0_0.ts") && names.contains("v2_2.ts"), "\(names)")
        XCTAssertFalse(names.contains { $0.hasPrefix("v1") }, "the other variant stays out: \(names)")
        let last = try XCTUnwrap(progress.all.last)
        XCTAssertEqual([last.pinned, last.total], [names.count, names.count])
        XCTAssertEqual(last.bytes, summary.bytes)
        XCTAssertEqual(progress.all.map(\.pinned), Array(1...names.count))
        for url in summary.resources {
            let foundEntry = await fixture.cache.entry(for: url)
            let entry = try XCTUnwrap(foundEntry, url.lastPathComponent)
            XCTAssertTrue(entry.isPinned, url.lastPathComponent)
            XCTAssertEqual(entry.cachedBytes, entry.info.length, url.lastPathComponent)
        }

        let direct = try await decode(fixture.originURL("v0.m3u8"), ffmpeg)
        XCTAssertGreaterThan(direct.frames, 100)
        try await assertPlaysOffline(fixture, "v0.m3u8", like: direct, with: ffmpeg)
    }

    func testEveryVariantPinnedPlaysTheMasterOffline() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        try await generateMaster(fixture, ffmpeg)
        let pinning = HLSPinning(cache: fixture.cache)
        let highest = try await pinning.pin(fixture.originURL("master.m3u8"))
        XCTAssertEqual(highest.mediaPlaylists.map(\.lastPathComponent), ["v1.m3u8", "v2.m3u8"], "the highest")
        let lowest = try await pinning.pin(fixture.originURL("master.m3u8"), variants: .resolution(maximumHeight: 120))
        XCTAssertEqual(lowest.mediaPlaylists.map(\.lastPathComponent), ["v0.m3u8", "v2.m3u8"])
        let all = try await pinning.pin(fixture.originURL("master.m3u8"), variants: .all)
        XCTAssertEqual(all.mediaPlaylists.map(\.lastPathComponent), ["v0.m3u8", "v1.m3u8", "v2.m3u8"])

        let direct = try await decode(fixture.originURL("master.m3u8"), ffmpeg)
        XCTAssertEqual(direct.status, 0, direct.stderr)
        try await assertPlaysOffline(fixture, "master.m3u8", like: direct, with: ffmpeg)
    }

    func testAnEncryptedStreamAndASingleFileStreamPlayOffline() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        try await generateEncryptedTS(
            fixture, ffmpeg, playlist: "enc.m3u8", key: "k.key", segments: "enc%d.ts", seconds: 4)
        try await generateSingleFileFMP4(
            fixture, ffmpeg, playlist: "one.m3u8", seconds: 4, segmentSeconds: 1, audio: false, initName: "one.mp4")
        let pinning = HLSPinning(cache: fixture.cache)
        let encrypted = try await pinning.pin(fixture.originURL("enc.m3u8"))
        XCTAssertTrue(encrypted.resources.contains(fixture.originURL("k.key")), "the key is pinned")
        let single = try await pinning.pin(fixture.originURL("one.m3u8"))
        XCTAssertEqual(
            single.resources.map(\.lastPathComponent), ["one.m3u8", "one.m4s"], "one file for every byte range")

        let directEncrypted = try await decode(fixture.originURL("enc.m3u8"), ffmpeg)
        let directSingle = try await decode(fixture.originURL("one.m3u8"), ffmpeg)
        XCTAssertGreaterThan(directEncrypted.frames, 50)
        XCTAssertGreaterThan(directSingle.frames, 50)
        fixture.nginx.stop()
        for (name, direct) in [("enc.m3u8", directEncrypted), ("one.m3u8", directSingle)] {
            let offline = try await decode(try fixture.proxyURL(name), ffmpeg)
            XCTAssertEqual(offline.status, 0, "\(name): \(offline.stderr)")
            XCTAssertTrue(offline.framemd5 == direct.framemd5, "\(name): offline frames differ")
        }
    }

    func testALiveStreamAndAnythingButAPlaylistAreRefused() async throws {
        let fixture = try await ProxyFixture(test: self)
        try "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n".write(
            to: fixture.www.appendingPathComponent("live.m3u8"), atomically: true, encoding: .utf8)
        try fixture.serveGenerated("clip.bin", length: 1000, seed: 3)
        let pinning = HLSPinning(cache: fixture.cache)
        do {
            _ = try await pinning.pin(fixture.originURL("live.m3u8"))
            XCTFail("a live stream was pinned")
        } catch let failure as HLSPinning.Failure {
            XCTAssertEqual(failure, .live(fixture.originURL("live.m3u8")))
        }
        let isPlaylist = try await pinning.isPlaylist(fixture.originURL("clip.bin"))
        XCTAssertFalse(isPlaylist)
        do {
            _ = try await pinning.pin(fixture.originURL("clip.bin"))
            XCTFail("bytes that are no playlist were taken for one")
        } catch let failure as HLSPinning.Failure {
            XCTAssertEqual(failure, .notAPlaylist(fixture.originURL("clip.bin")))
        }
    }

    /// A master with a 160x120 variant at 200 kbit/s, a 320x240 one at 800 kbit/s and an audio rendition.
    private func generateMaster(_ fixture: ProxyFixture, _ ffmpeg: ExternalCommand) async throws {
        try await generateMaster(
            fixture, ffmpeg, master: "master.m3u8", prefix: "v", variants: [("200k", "160x120"), ("800k", nil)])
    }
}

/// Progress reports, collected in order.
private final class ProgressEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [HLSPinning.Progress] = []

    func add(_ event: HLSPinning.Progress) { lock.withLock { events.append(event) } }

    var all: [HLSPinning.Progress] { lock.withLock { events } }
}
