import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One entry's data file: a sparse file written and read at resource offsets, never loaded whole.
final class EntryFile: @unchecked Sendable {
    private let descriptor: Int32
    private let closed = LockedBox(false)

    /// Opens (creating if needed) the file at `url` for reading and writing.
    init(url: URL) throws {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SpoolError.storage("cannot open \(url.lastPathComponent): \(Self.errnoText())") }
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Writes all of `data` at `offset`.
    func write(_ data: Data, at offset: Int64) throws {
        try data.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let result = pwrite(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { throw SpoolError.storage("write: \(Self.errnoText())") }
                done += result
            }
        }
    }

    /// Reads `range`; fails if the file ends first (the index claimed bytes the file does not have).
    func read(_ range: Range<Int64>) throws -> Data {
        let count = Int(range.upperBound - range.lowerBound)
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < count {
                let result = pread(descriptor, buffer.baseAddress! + done, count - done, off_t(range.lowerBound) + off_t(done))
                if result < 0, errno == EINTR { continue }
                guard result > 0 else {
                    throw SpoolError.storage(result == 0 ? "data file ends before \(range)" : "read: \(Self.errnoText())")
                }
                done += result
            }
        }
        return data
    }

    /// Makes written bytes durable before the index claims them.
    func synchronize() {
        #if canImport(Darwin)
        _ = fsync(descriptor)
        #else
        _ = fdatasync(descriptor)
        #endif
    }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int64) throws {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw SpoolError.storage("truncate: \(Self.errnoText())") }
    }

    /// Closes the descriptor; later calls do nothing.
    func close() {
        let wasClosed = closed.withLock { closed in
            defer { closed = true }
            return closed
        }
        if !wasClosed { _ = systemClose(descriptor) }
    }

    static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
