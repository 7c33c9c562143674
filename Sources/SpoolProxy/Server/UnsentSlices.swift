import NIOCore
import Spool

/// The file slices of one connection that were handed to the channel and not yet sent, so each is released
/// exactly once: by `SentBytesTracker` when the socket has taken its bytes (or the write failed), or when the
/// connection closes for those that never reached the socket.
final class UnsentSlices: Sendable {
    private struct State {
        var pending: [ObjectIdentifier: @Sendable () -> Void] = [:]
        var closed = false
    }

    private let state = LockedBox(State())

    /// The slice's bytes as a file region the channel sends with `sendfile`, registered for release. Throws
    /// (after releasing the slice) when the connection has closed already.
    func region(for slice: FileSlice) throws -> FileRegion {
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: slice.descriptor)
        let release: @Sendable () -> Void = {
            try? handle.close()
            slice.release()
        }
        let open = state.withLock { state in
            guard !state.closed else { return false }
            state.pending[ObjectIdentifier(handle)] = release
            return true
        }
        guard open else {
            release()
            throw ChannelError.ioOnClosedChannel
        }
        return FileRegion(
            fileHandle: handle, readerIndex: Int(slice.offset), endIndex: Int(slice.offset) + slice.count)
    }

    /// The release of the slice `region` was made from, taken out of the ledger; `nil` for other regions.
    func takeRelease(of region: FileRegion) -> (@Sendable () -> Void)? {
        state.withLock { $0.pending.removeValue(forKey: ObjectIdentifier(region.fileHandle)) }
    }

    /// Releases every slice still pending; called once the connection has closed, when nothing more is sent.
    func closeAndReleaseAll() {
        let releases = state.withLock { state in
            state.closed = true
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for release in releases { release() }
    }
}
