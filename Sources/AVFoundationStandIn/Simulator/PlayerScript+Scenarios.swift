#if os(Linux)
import Foundation

/// Ready-made request patterns observed from AVPlayer (the recorded traces in `RecordedTraces.swift` and the published
/// reports they come from).
extension PlayerScript {
    /// The content-information probe most patterns start with: as in real AVFoundation, it usually
    /// carries a 2-byte data request (`bytes=0-1`) too.
    static let probe = ScriptedRequest(info: true, data: true, offset: 0, length: 2)

    /// The probe without a data part, which AVFoundation also sends.
    static let informationOnlyProbe = ScriptedRequest(info: true, data: false, offset: 0, length: 2)

    /// Plain playback: probe, a to-end request from 0 cancelled after about 60 KB, then a to-end request
    /// from that point read to the end of the resource.
    public static func linearPlay(length: Int64) -> PlayerScript {
        let firstChunk: Int64 = 60 * 1024
        return PlayerScript(
            requests: [
                probe,
                ScriptedRequest(offset: 0, length: nil, cancelAfter: firstChunk),
                ScriptedRequest(offset: min(firstChunk, length - 1), length: nil),
            ], toEndReadLimit: nil)
    }

    /// An MP4 with `moov` at the end: probe, a to-end request from 0 cancelled after 16 KB, the last
    /// 512 KB as a bounded request (serving strictly in order stalls here), then a to-end request from
    /// 16 KB read to the end.
    public static func moovAtEnd(length: Int64) -> PlayerScript {
        let head: Int64 = 16 * 1024
        let tail = min(512 * 1024, length)
        return PlayerScript(
            requests: [
                probe,
                ScriptedRequest(offset: 0, length: nil, cancelAfter: head),
                ScriptedRequest(offset: length - tail, length: tail),
                ScriptedRequest(offset: min(head, length - 1), length: nil),
            ], toEndReadLimit: nil)
    }

    /// A user scrubbing: probe, then `seeks` to-end requests at random offsets, each cancelled after
    /// 64–512 KB. Every other seek opens before the previous request is cancelled, because the new
    /// request and the cancel of the old one arrive in either order.
    public static func seekStorm(length: Int64, seeks: Int = 50, seed: UInt64) -> PlayerScript {
        var random = SplitMix64(seed: seed)
        var requests = [probe]
        for seek in 0..<seeks {
            let offset = Int64(random.next() % UInt64(max(1, length)))
            let cancelAfter = Int64(64 * 1024 + random.next() % UInt64(448 * 1024 + 1))
            let overlapping = seek > 0 && seek % 2 == 1
            requests.append(
                ScriptedRequest(
                    offset: offset, length: nil, cancelAfter: cancelAfter,
                    openWith: overlapping ? [requests.count - 1] : []))
        }
        return PlayerScript(requests: requests)
    }

    /// Playing a fully cached resource offline: the same requests as `linearPlay(length:)`.
    public static func offlineReplay(length: Int64) -> PlayerScript {
        linearPlay(length: length)
    }

    /// How an `AVQueuePlayer` pre-buffers the next item: a probe without a data part and a small bounded
    /// range from 0.
    public static func prebuffer(length: Int64) -> PlayerScript {
        PlayerScript(requests: [informationOnlyProbe, ScriptedRequest(offset: 0, length: min(256 * 1024, length))])
    }
}

/// A small seeded generator, so a seek storm is the same on every run and every platform.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
#endif
