/// One element of a `Range: bytes=…` header (RFC 9110, section 14.1.1), before the length is known.
enum RangeSpecifier: Hashable, Sendable {
    /// `first-last`, both inclusive.
    case bounded(first: Int64, last: Int64)
    /// `first-`: to the end.
    case from(first: Int64)
    /// `-count`: the last `count` bytes.
    case suffix(count: Int64)

    /// The elements of a `Range` header value, or `nil` when it is not a valid `bytes` range set: such a
    /// header is ignored and the whole representation served (RFC 9110, section 14.2).
    static func parse(header value: String) -> [RangeSpecifier]? {
        // Scanned as bytes: every character that matters is ASCII, and `String`'s character view (grapheme
        // breaking) made this parse about 3 % of the proxy's CPU under many small range requests.
        var value = value
        return value.withUTF8 { parse(Bytes(base: $0, bounds: 0..<$0.count)) }
    }

    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    private static func parse(_ value: Bytes) -> [RangeSpecifier]? {
        guard let equals = value.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let unit = trimmed(value[..<equals])
        // "bytes", in any case: `| 0x20` lower-cases an ASCII letter and maps nothing else onto one.
        guard unit.count == 5, zip(unit, "bytes".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        var result: [RangeSpecifier] = []
        // A list element may be empty (`bytes=0-1,,5-6`); at least one must not be.
        for element in value[(equals + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let text = trimmed(element)
            if text.isEmpty { continue }
            guard let specifier = parse(element: text) else { return nil }
            result.append(specifier)
        }
        return result.isEmpty ? nil : result
    }

    /// `text` without the optional whitespace HTTP allows around list elements (spaces and tabs).
    private static func trimmed(_ text: Bytes) -> Bytes {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
            let last = text.lastIndex(where: { !isSpace($0) })
        else { return text[text.startIndex..<text.startIndex] }
        return text[first...last]
    }

    private static func parse(element: Bytes) -> RangeSpecifier? {
        guard let dash = element.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let firstText = element[..<dash]
        let lastText = element[(dash + 1)...]
        if firstText.isEmpty {
            guard let count = number(lastText) else { return nil }
            return .suffix(count: count)
        }
        guard let first = number(firstText) else { return nil }
        if lastText.isEmpty { return .from(first: first) }
        guard let last = number(lastText), last >= first else { return nil }
        return .bounded(first: first, last: last)
    }

    /// Decimal digits only; values past `Int64.max` saturate, which keeps them correct for any real length.
    private static func number(_ text: Bytes) -> Int64? {
        guard !text.isEmpty, text.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: Int64 = 0
        for digit in text {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(digit - 0x30))
            if overflow1 || overflow2 { return .max }
            value = sum
        }
        return value
    }

    /// The bytes this element selects of a representation of `length` bytes, or `nil` when it selects none
    /// (unsatisfiable).
    func resolved(length: Int64) -> Range<Int64>? {
        switch self {
        case .bounded(let first, let last):
            guard first < length else { return nil }
            return first..<(min(last, length - 1) + 1)
        case .from(let first):
            guard first < length else { return nil }
            return first..<length
        case .suffix(let count):
            guard count > 0, length > 0 else { return nil }
            return max(0, length - count)..<length
        }
    }
}
