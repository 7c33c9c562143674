import Foundation

/// Stored bytes handed out as a place in the entry's data file instead of a copy, for a server that sends
/// them to a socket straight from the file (`sendfile`): no byte passes through user memory.
///
/// Only bytes that need no transformation (the cache is not encrypted) and that this process has verified or
/// written itself are handed out this way. While a slice is out, the engine keeps its bytes where they are:
/// eviction spares them, and a new version of the resource empties the file only after every slice is
/// released. A slice whose bytes must go (the resource changed) is revoked: its holder stops sending and
/// releases it. The holder must call `release()` exactly once, after the last byte was sent or the send failed.
package struct FileSlice: Sendable {
    /// A descriptor of the data file owned by the slice's holder, who closes it on release.
    package let descriptor: Int32
    /// The file offset of the first byte; equal to its offset in the resource.
    package let offset: Int64
    /// The number of bytes.
    package let count: Int
    private let onRelease: @Sendable () -> Void

    init(descriptor: Int32, offset: Int64, count: Int, onRelease: @escaping @Sendable () -> Void) {
        self.descriptor = descriptor
        self.offset = offset
        self.count = count
        self.onRelease = onRelease
    }

    /// Ends the slice: the engine may change its bytes again. The descriptor must be closed by then.
    package func release() {
        onRelease()
    }
}
