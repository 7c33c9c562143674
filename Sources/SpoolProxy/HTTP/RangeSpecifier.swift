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
        guard let equals = value.firstIndex(of: "=") else { return nil }
        guard trimmed(value[..<equals]).lowercased() == "bytes" else { return nil }
        var result: [RangeSpecifier] = []
        // A list element may be empty (`bytes=0-1,,5-6`); at least one must not be.
        for element in value[value.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let text = trimmed(element)
            if text.isEmpty { continue }
            guard let specifier = parse(element: text) else { return nil }
            result.append(specifier)
        }
        return result.isEmpty ? nil : result
    }

    /// `text` without the optional whitespace HTTP allows around list elements (spaces and tabs). Not
    /// Foundation's `trimmingCharacters`, which bridges to `NSString` on Linux: it took 7 % of the proxy's CPU
    /// under many small range requests.
    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }

    private static func parse(element: Substring) -> RangeSpecifier? {
        guard let dash = element.firstIndex(of: "-") else { return nil }
        let firstText = element[..<dash]
        let lastText = element[element.index(after: dash)...]
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
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: Int64 = 0
        for digit in text.utf8 {
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
