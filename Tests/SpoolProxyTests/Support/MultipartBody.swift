import Foundation

/// A `multipart/byteranges` body taken apart the way a client must (RFC 9110, section 14.6).
enum MultipartBody {
    struct Part {
        var headers: [String: String]
        var body: Data
    }

    struct Malformed: Error {}

    static func parse(_ body: Data, boundary: String) throws -> [Part] {
        let delimiter = Data("\r\n--\(boundary)".utf8)
        // The first delimiter may come without its leading CRLF.
        var data = body
        if data.starts(with: Data("--\(boundary)".utf8)) { data = Data("\r\n".utf8) + data }
        var parts: [Part] = []
        var cursor = data.startIndex
        guard let first = data.range(of: delimiter, in: cursor..<data.endIndex) else { throw Malformed() }
        cursor = first.upperBound
        while true {
            if data[cursor...].starts(with: Data("--".utf8)) { return parts }
            guard data[cursor...].starts(with: Data("\r\n".utf8)) else { throw Malformed() }
            let headerStart = cursor + 2
            guard let headerEnd = data.range(of: Data("\r\n\r\n".utf8), in: headerStart..<data.endIndex),
                let next = data.range(of: delimiter, in: headerEnd.upperBound..<data.endIndex)
            else { throw Malformed() }
            var headers: [String: String] = [:]
            for line in String(decoding: data[headerStart..<headerEnd.lowerBound], as: UTF8.self).components(
                separatedBy: "\r\n")
            {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            parts.append(Part(headers: headers, body: Data(data[headerEnd.upperBound..<next.lowerBound])))
            cursor = next.upperBound
        }
    }
}
