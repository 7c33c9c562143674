import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads chunks of one response body; owned by a single connection thread.
///
/// Files are opened per response and read with `pread`, so memory stays flat whatever the size.
final class ContentReader {
    /// The content could not be opened (e.g. the file was deleted after `serve`).
    struct Unavailable: Error {}

    private let content: TestContent
    private let fileDescriptor: Int32

    init(_ content: TestContent) throws {
        self.content = content
        if case .file(let url) = content {
            let fd = open(url.path, O_RDONLY)
            guard fd >= 0 else { throw Unavailable() }
            fileDescriptor = fd
        } else {
            fileDescriptor = -1
        }
    }

    deinit {
        if fileDescriptor >= 0 { close(fileDescriptor) }
    }

    /// Up to `count` bytes from `offset`; shorter only if a file shrank underneath us.
    func read(offset: Int64, count: Int) -> Data {
        switch content {
        case .data(let data):
            let start = data.startIndex + Int(offset)
            let end = min(data.endIndex, start + count)
            return start < end ? data.subdata(in: start..<end) : Data()
        case .generated(_, let seed):
            return GeneratedBytes(seed: seed).bytes(in: offset..<(offset + Int64(count)))
        case .file:
            return readFile(offset: offset, count: count)
        }
    }

    private func readFile(offset: Int64, count: Int) -> Data {
        var data = Data(count: count)
        let filled = data.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            var filled = 0
            while filled < count {
                let result = pread(fileDescriptor, base + filled, count - filled, off_t(offset + Int64(filled)))
                if result > 0 {
                    filled += result
                } else if result < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            return filled
        }
        if filled < count { data.removeSubrange(filled..<count) }
        return data
    }
}
