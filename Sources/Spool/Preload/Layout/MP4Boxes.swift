import Foundation

/// Reading ISO base media (MP4, MOV, M4A) boxes: a size, a four-character type, then the contents.
enum MP4Boxes {
    /// A box: its type and the bytes it spans in the data it was found in (header included).
    struct Box: Equatable {
        var type: String
        var range: Range<Int>
        var headerLength: Int

        /// Its contents, after the header.
        var contents: Range<Int> { range.lowerBound + headerLength..<range.upperBound }
    }

    /// The header at the start of `bytes` (at least 8 bytes; 16 for a 64-bit size): the box's type, its total
    /// length (`nil` for a box that runs to the end of its parent) and the header's length. `nil` when the
    /// bytes are no box header.
    static func header(_ bytes: some Collection<UInt8>) -> (type: String, length: Int64?, headerLength: Int)? {
        let bytes = Array(bytes.prefix(16))
        guard bytes.count >= 8 else { return nil }
        let size32 = Int64(bigEndian32(bytes, 0))
        let typeBytes = bytes[4..<8]
        // Box types are printable ASCII; anything else means these bytes are not a box header.
        guard typeBytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let type = String(decoding: typeBytes, as: UTF8.self)
        switch size32 {
        case 0: return (type, nil, 8)
        case 1:
            guard bytes.count >= 16 else { return nil }
            let size64 = Int64(bitPattern: UInt64(bigEndian32(bytes, 8)) << 32 | UInt64(bigEndian32(bytes, 12)))
            return size64 >= 16 ? (type, size64, 16) : nil
        case 2..<8: return nil
        default: return (type, size32, 8)
        }
    }

    /// The boxes directly inside `range` of `data`, in order; stops at the first malformed header.
    static func children(of data: Data, in range: Range<Int>) -> [Box] {
        var boxes: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            guard
                let header = header(
                    data[data.startIndex + offset..<data.startIndex + min(offset + 16, range.upperBound)])
            else { break }
            let end = header.length.map { offset + Int(clamping: $0) } ?? range.upperBound
            guard end <= range.upperBound, end > offset else { break }
            boxes.append(Box(type: header.type, range: offset..<end, headerLength: header.headerLength))
            offset = end
        }
        return boxes
    }

    /// The first box of `type` directly inside `range` of `data`.
    static func child(_ type: String, of data: Data, in range: Range<Int>) -> Box? {
        children(of: data, in: range).first { $0.type == type }
    }

    /// The box at the end of a path of types (`["trak", "mdia", "mdhd"]`), each inside the previous.
    static func descend(_ path: [String], in data: Data, from range: Range<Int>) -> Box? {
        var current = range
        var found: Box?
        for type in path {
            guard let box = child(type, of: data, in: current) else { return nil }
            found = box
            current = box.contents
        }
        return found
    }

    static func bigEndian32(_ bytes: some Collection<UInt8>, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        var index = bytes.index(bytes.startIndex, offsetBy: offset)
        for _ in 0..<4 {
            value = value << 8 | UInt32(bytes[index])
            index = bytes.index(after: index)
        }
        return value
    }

    static func bigEndian64(_ bytes: some Collection<UInt8>, _ offset: Int) -> UInt64 {
        UInt64(bigEndian32(bytes, offset)) << 32 | UInt64(bigEndian32(bytes, offset + 4))
    }
}
