import Foundation

/// The JSON of the control APIs (`/preload`, `/downloads`): bodies decoded with a refusal that says what is
/// wrong, answers encoded with sorted keys and a final newline (a person reading curl's output sees one
/// object per line).
enum ControlJSON {
    /// `body` as a `Message`; a `FailureResponse` (400) that names the field otherwise.
    static func decode<Message: Decodable>(_ type: Message.Type, from body: [UInt8]) throws -> Message {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            throw FailureResponse(status: 400, reason: "not the JSON expected: \(describe(error))")
        }
    }

    /// `message` as JSON with sorted keys, and a newline.
    static func encode<Message: Encodable>(_ message: Message) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(message)) + [UInt8(ascii: "\n")]
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context): context.codingPath.isEmpty ? "malformed" : "\(path(context.codingPath))"
        @unknown default: "malformed"
        }
    }

    /// `items[2].url`.
    private static func path(_ keys: [any CodingKey]) -> String {
        keys.reduce(into: "") { text, key in
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
    }
}
