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
        BlockingIO.willBlock("opening a data file")
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SpoolError.storage("cannot open \(url.lastPathComponent): \(Self.errnoText())")
        }
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    /// Writes all of `data` at `offset`.
    func write(_ data: Data, at offset: Int64) throws {
        BlockingIO.willBlock("pwrite")
        try data.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let result = pwrite(
                    descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { throw SpoolError.storage("write: \(Self.errnoText())") }
                done += result
            }
        }
    }

    /// Reads `range`; `nil` if the file ends first (another process cut it, or the index claimed too much).
    func read(_ range: Range<Int64>) throws -> Data? {
        var data = Data(count: Int(range.upperBound - range.lowerBound))
        let complete = try data.withUnsafeMutableBytes { try read(range, into: $0) }
        return complete ? data : nil
    }

    /// Reads `range` into `buffer` (of its size); `false` if the file ends first.
    func read(_ range: Range<Int64>, into buffer: UnsafeMutableRawBufferPointer) throws -> Bool {
        let count = Int(range.upperBound - range.lowerBound)
        precondition(buffer.count == count)
        BlockingIO.willBlock("pread")
        var done = 0
        while done < count {
            let result = pread(
                descriptor, buffer.baseAddress! + done, count - done, off_t(range.lowerBound) + off_t(done))
            if result < 0, errno == EINTR { continue }
            if result == 0 { return false }
            guard result > 0 else { throw SpoolError.storage("read: \(Self.errnoText())") }
            done += result
        }
        return true
    }

    /// The file's device, inode, size and change time: another value means the file was written since, or
    /// removed and made anew (an inode number is reused at once). Change times tick with the kernel's coarse
    /// clock, a few milliseconds: a write within the same tick goes unseen.
    var identity: [UInt64] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return [] }
        #if canImport(Darwin)
        let changed = status.st_ctimespec
        #else
        let changed = status.st_ctim
        #endif
        return [
            UInt64(status.st_dev), UInt64(status.st_ino), UInt64(status.st_size), UInt64(changed.tv_sec),
            UInt64(changed.tv_nsec),
        ]
    }

    /// Whether the file was removed from its directory while open (another process cleared or evicted the
    /// entry): its bytes are no longer the cache's, and its space is freed only once it is closed.
    var isRemoved: Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && status.st_nlink == 0
    }

    /// A new descriptor of the same open file, closed on exec, for a caller that sends bytes straight from it
    /// (`sendfile`) and closes it when done; it keeps the file readable even if the entry is removed meanwhile.
    func duplicateDescriptor() throws -> Int32 {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw SpoolError.storage("dup: \(String(cString: strerror(errno)))") }
        return duplicate
    }

    /// Gives the disk space of `range` back while keeping the file's length (a hole reads as zeros).
    func punchHole(_ range: Range<Int64>) {
        BlockingIO.willBlock("punching a hole")
        #if os(Linux)
        // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE from <linux/falloc.h>.
        _ = linuxFallocate(descriptor, 0x02 | 0x01, off_t(range.lowerBound), off_t(range.upperBound - range.lowerBound))
        #elseif canImport(Darwin)
        var hole = fpunchhole_t(
            fp_flags: 0, reserved: 0, fp_offset: off_t(range.lowerBound),
            fp_length: off_t(range.upperBound - range.lowerBound))
        _ = fcntl(descriptor, F_PUNCHHOLE, &hole)
        #endif
    }

    /// Takes an advisory lock on the file, shared or exclusive, waiting for it unless `wait` is false;
    /// returns whether it was taken. Locks belong to this open file and end when it closes.
    @discardableResult
    func lock(exclusive: Bool, wait: Bool = true) -> Bool {
        var operation = exclusive ? LOCK_EX : LOCK_SH
        if wait { BlockingIO.willBlock("flock") } else { operation |= LOCK_NB }
        while true {
            if flock(descriptor, operation) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    /// Releases the lock `lock` took.
    func unlock() {
        _ = flock(descriptor, LOCK_UN)
    }

    /// Makes written bytes durable before the index claims them.
    func synchronize() {
        BlockingIO.willBlock("fsync")
        #if canImport(Darwin)
        _ = fsync(descriptor)
        #else
        _ = fdatasync(descriptor)
        #endif
    }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int64) throws {
        BlockingIO.willBlock("ftruncate")
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw SpoolError.storage("truncate: \(Self.errnoText())")
        }
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

#if os(Linux)
// Glibc declares fallocate only under _GNU_SOURCE, which the Swift module does not define.
@_silgen_name("fallocate")
private func linuxFallocate(_ descriptor: Int32, _ mode: Int32, _ offset: off_t, _ length: off_t) -> Int32
#endif
