import Foundation

/// The encryption key in a `--key-file`: exactly 32 raw bytes, or 64 hexadecimal characters (surrounding
/// whitespace and a final newline allowed). Anything else is refused rather than stretched or padded, so a
/// typo never silently becomes a different key.
enum KeyFile {
    /// The key length AES-256 needs.
    static let keyLength = 32

    /// Reads and decodes the key in the file at `path`.
    static func load(path: String) throws -> Data {
        let contents: Data
        do {
            contents = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ArgumentText.Invalid("cannot read key file \(path): \(error.localizedDescription)")
        }
        do {
            return try decode(contents)
        } catch let invalid as ArgumentText.Invalid {
            throw ArgumentText.Invalid("key file \(path): \(invalid.description)")
        }
    }

    /// The key in a key file's contents.
    static func decode(_ contents: Data) throws -> Data {
        if contents.count == keyLength { return contents }
        guard let text = String(data: contents, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw invalid(contents)
        }
        guard text.count == keyLength * 2, let key = hexBytes(text) else { throw invalid(contents) }
        return key
    }

    private static func invalid(_ contents: Data) -> ArgumentText.Invalid {
        ArgumentText.Invalid(
            "holds \(contents.count) bytes that are neither a 32-byte key nor 64 hexadecimal characters "
                + "(make one with: head -c 32 /dev/urandom > FILE, or openssl rand -hex 32 > FILE)")
    }

    private static func hexBytes(_ text: String) -> Data? {
        var bytes = Data(capacity: text.count / 2)
        var high: UInt8?
        for character in text.utf8 {
            guard let nibble = nibble(character) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? bytes : nil
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
