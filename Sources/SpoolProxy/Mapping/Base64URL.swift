/// Base64url without padding (RFC 4648, section 5): the alphabet of the proxy's paths and tokens.
///
/// Spelled out rather than Foundation's base64 with `+`, `/` and `=` swapped by `replacingOccurrences`: on Linux
/// those took a sixth of what mapping a new request target cost on the event loop (its samples in `perf`, the
/// first request of eight fresh serves), on the path of every cold request's first byte.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in the alphabet, 0xFF for a byte outside it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { values[Int(character)] = UInt8(value) }
        return values
    }()

    /// `bytes` encoded, without padding.
    static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            // Three bytes make four characters; one or two make two or three.
            for position in 0...count {
                text.append(alphabet[Int((group >> (18 - 6 * UInt32(position))) & 0x3F)])
            }
            index += count
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` encodes; `nil` when it holds a character outside the alphabet (padding included) or
    /// has a length no encoding has (one more than a multiple of four).
    static func decode(_ text: Substring) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var group: UInt32 = 0
        var pending = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                bytes.append(UInt8(truncatingIfNeeded: group >> 16))
                bytes.append(UInt8(truncatingIfNeeded: group >> 8))
                bytes.append(UInt8(truncatingIfNeeded: group))
                (group, pending) = (0, 0)
            }
        }
        // Two characters carry one byte, three carry two; the bits left over are the encoder's zero padding.
        if pending == 2 {
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        } else if pending == 3 {
            bytes.append(UInt8(truncatingIfNeeded: group >> 10))
            bytes.append(UInt8(truncatingIfNeeded: group >> 2))
        }
        return bytes
    }
}
