import Foundation

/// Where second *N* of an MP3 lies, from its first frame header: a Xing or Info header's table of contents
/// (VBR), a VBRI header's totals, or the bit rate of a constant-rate file; after any ID3v2 tag.
enum MP3Layout {
    /// The first frame header of an MP3, with what it says about the file.
    struct FirstFrame: Equatable {
        /// Where the frame starts: after the ID3v2 tag.
        var offset: Int64
        var bitrate: Int
        var sampleRate: Int
        var samplesPerFrame: Int
        var frameLength: Int
        /// From a Xing/Info or VBRI header: the frames and the audio bytes of the file.
        var frames: Int?
        var audioBytes: Int64?
        /// A Xing table of contents: 100 entries, each the position of that percentage as a 256th of the audio.
        var tableOfContents: [UInt8]?
    }

    /// The length of an ID3v2 tag at the start of `prefix` (0 when there is none).
    static func tagLength(_ prefix: Data) -> Int64 {
        let bytes = [UInt8](prefix.prefix(10))
        guard bytes.count == 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return 0 }
        let size = bytes[6..<10].reduce(Int64(0)) { $0 << 7 | Int64($1 & 0x7F) }
        let footer: Int64 = bytes[5] & 0x10 != 0 ? 10 : 0
        return 10 + size + footer
    }

    /// The first frame of `data`, which holds the file's bytes from `offset` (the end of its ID3v2 tag); the
    /// header must be within the first 4 KiB of `data` and its bytes valid. `nil` when there is none.
    static func firstFrame(in data: Data, at offset: Int64) -> FirstFrame? {
        let bytes = [UInt8](data.prefix(4096 + 200))
        var index = 0
        while index + 4 <= min(bytes.count, 4096) {
            if let frame = frame(bytes, at: index, fileOffset: offset + Int64(index)) { return frame }
            index += 1
        }
        return nil
    }

    /// The ranges of an MP3 of `length` bytes to read for its first `seconds`; `nil` when it is no MP3 this
    /// understands. `read` returns bytes of the file.
    static func ranges(
        forSeconds seconds: Double, length: Int64, prefix: Data, read: (Range<Int64>) async throws -> Data
    ) async throws -> [Range<Int64>]? {
        let tag = tagLength(prefix)
        guard tag < length else { return nil }
        let start = try await read(tag..<min(length, tag + 4096 + 200))
        guard let frame = firstFrame(in: start, at: tag) else { return nil }
        let end = min(length, frame.offset + offset(ofSecond: seconds, in: frame, length: length))
        return [0..<end]
    }

    /// The offset of `seconds` from the first frame, with two frames of margin.
    static func offset(ofSecond seconds: Double, in frame: FirstFrame, length: Int64) -> Int64 {
        let margin = Int64(2 * frame.frameLength)
        let audioBytes = frame.audioBytes ?? (length - frame.offset)
        if let frames = frame.frames, frames > 0 {
            let duration = Double(frames * frame.samplesPerFrame) / Double(frame.sampleRate)
            guard duration > 0 else { return audioBytes }
            let fraction = min(1, max(0, seconds / duration))
            if let toc = frame.tableOfContents, toc.count == 100 {
                let percent = fraction * 100
                let index = min(99, Int(percent))
                let low = Double(toc[index])
                let high = index < 99 ? Double(toc[index + 1]) : 256
                let position = (low + (high - low) * (percent - Double(index))) / 256
                // An entry is a 256th of the audio, rounded down: one more keeps the offset past the second.
                return Int64(position * Double(audioBytes)) + audioBytes / 256 + margin
            }
            return Int64(fraction * Double(audioBytes)) + margin
        }
        return Int64(seconds * Double(frame.bitrate) / 8) + margin
    }

    private static let bitratesMPEG1Layer3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
    private static let bitratesMPEG1Layer2 = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
    private static let bitratesMPEG2Layers2And3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]

    /// The frame whose header is at `index` of `bytes`: layers II and III of MPEG 1, 2 and 2.5.
    private static func frame(_ bytes: [UInt8], at index: Int, fileOffset: Int64) -> FirstFrame? {
        let header = MP4Boxes.bigEndian32(bytes, index)
        guard header >> 21 == 0x7FF else { return nil }
        let version = (header >> 19) & 0b11  // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
        let layer = (header >> 17) & 0b11  // 1: III, 2: II
        let bitrateIndex = Int((header >> 12) & 0xF)
        let rateIndex = Int((header >> 10) & 0b11)
        guard version != 1, layer == 1 || layer == 2, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else {
            return nil
        }
        let isMPEG1 = version == 3
        let table =
            isMPEG1 ? (layer == 1 ? bitratesMPEG1Layer3 : bitratesMPEG1Layer2) : bitratesMPEG2Layers2And3
        let bitrate = table[bitrateIndex] * 1000
        let sampleRate = [44100, 48000, 32000][rateIndex] >> (isMPEG1 ? 0 : version == 2 ? 1 : 2)
        let samplesPerFrame = layer == 2 || isMPEG1 ? 1152 : 576
        let padding = Int((header >> 9) & 1)
        let frameLength = samplesPerFrame / 8 * bitrate / sampleRate + padding
        guard frameLength > 4 else { return nil }
        // A real header is followed by another frame (or the end): a stray 0xFFE pattern in a tag is not.
        let next = index + frameLength
        if next + 2 <= bytes.count, !(bytes[next] == 0xFF && bytes[next + 1] & 0xE0 == 0xE0) { return nil }
        var frame = FirstFrame(
            offset: fileOffset, bitrate: bitrate, sampleRate: sampleRate, samplesPerFrame: samplesPerFrame,
            frameLength: frameLength)
        let mono = (header >> 6) & 0b11 == 3
        let sideInfo = isMPEG1 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        readXing(bytes, at: index + 4 + sideInfo, into: &frame)
        readVBRI(bytes, at: index + 4 + 32, into: &frame)
        return frame
    }

    private static func readXing(_ bytes: [UInt8], at start: Int, into frame: inout FirstFrame) {
        guard start + 8 <= bytes.count else { return }
        let tag = String(decoding: bytes[start..<start + 4], as: UTF8.self)
        guard tag == "Xing" || tag == "Info" else { return }
        let flags = MP4Boxes.bigEndian32(bytes, start + 4)
        var cursor = start + 8
        if flags & 1 != 0, cursor + 4 <= bytes.count {
            frame.frames = Int(MP4Boxes.bigEndian32(bytes, cursor))
            cursor += 4
        }
        if flags & 2 != 0, cursor + 4 <= bytes.count {
            frame.audioBytes = Int64(MP4Boxes.bigEndian32(bytes, cursor))
            cursor += 4
        }
        if flags & 4 != 0, cursor + 100 <= bytes.count {
            frame.tableOfContents = Array(bytes[cursor..<cursor + 100])
        }
    }

    private static func readVBRI(_ bytes: [UInt8], at start: Int, into frame: inout FirstFrame) {
        guard frame.frames == nil, start + 18 <= bytes.count,
            String(decoding: bytes[start..<start + 4], as: UTF8.self) == "VBRI"
        else { return }
        frame.audioBytes = Int64(MP4Boxes.bigEndian32(bytes, start + 10))
        frame.frames = Int(MP4Boxes.bigEndian32(bytes, start + 14))
    }
}
