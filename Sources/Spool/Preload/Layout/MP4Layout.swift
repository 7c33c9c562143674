import Foundation

/// The byte ranges of an MP4 a player reads to play its first seconds: the boxes before the media, the
/// `moov` wherever it is (a `moov` after the media means its tail too), and the media up to the last sample
/// of those seconds.
enum MP4Layout {
    /// The top-level boxes a file this short or an unknown box before `moov` stops the walk after.
    static let maximumTopLevelBoxes = 64
    /// The largest `moov` read: its sample tables grow with the duration (about 1 MB an hour of video).
    static let maximumMovieBoxBytes: Int64 = 32 << 20

    /// Whether `prefix` (the first bytes of a resource) starts like an MP4: an `ftyp`, or another box files
    /// start with.
    static func looksLikeMP4(_ prefix: Data) -> Bool {
        guard let header = MP4Boxes.header(prefix) else { return false }
        return ["ftyp", "moov", "mdat", "free", "skip", "wide", "pnot"].contains(header.type)
    }

    /// The ranges of a file of `length` bytes to read for its first `seconds`; `nil` when it is no MP4 with
    /// sample tables (fragmented, damaged, a `moov` too large). `read` returns bytes of the file.
    static func ranges(
        forSeconds seconds: Double, length: Int64, read: (Range<Int64>) async throws -> Data
    ) async throws -> [Range<Int64>]? {
        var offset: Int64 = 0
        var movie: Range<Int64>?
        for _ in 0..<maximumTopLevelBoxes where offset + 8 <= length {
            let header = try await read(offset..<min(length, offset + 16))
            guard let box = MP4Boxes.header(header) else { return nil }
            let end = box.length.map { offset + $0 } ?? length
            guard end <= length, end > offset else { return nil }
            if box.type == "moov" {
                movie = offset..<end
                break
            }
            if box.type == "moof" { return nil }
            offset = end
        }
        guard let movie, movie.count <= maximumMovieBoxBytes else { return nil }
        let moov = try await read(movie)
        guard let mediaEnd = MP4SampleTables.mediaEnd(forSeconds: seconds, moov: moov), mediaEnd <= length else {
            return nil
        }
        // The file's start up to the media's end covers `ftyp` and a leading `moov`; a trailing one comes too.
        if movie.lowerBound >= mediaEnd { return [0..<mediaEnd, movie] }
        return [0..<max(mediaEnd, movie.upperBound)]
    }
}
