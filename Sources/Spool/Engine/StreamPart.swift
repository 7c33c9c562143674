import Foundation

/// A piece of a read as a server that can send from files takes it: bytes in memory, or a slice of the data
/// file (see `FileSlice`).
package enum StreamPart: Sendable {
    /// Bytes in memory.
    case bytes(Data)
    /// Bytes to send from the data file.
    case file(FileSlice)

    /// The number of bytes.
    package var count: Int {
        switch self {
        case .bytes(let data): return data.count
        case .file(let slice): return slice.count
        }
    }
}
