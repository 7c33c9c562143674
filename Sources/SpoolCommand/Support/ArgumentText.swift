import Foundation

/// What `ByteSize` and `AgeText` share: splitting `1.5GiB` into a number and a unit, and their error.
enum ArgumentText {
    /// A value that does not parse, with a message naming the value and what would be accepted.
    struct Invalid: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    /// The non-negative decimal number at the start of `text` and the letters after it (spaces between
    /// them and around them allowed). `example` words the error.
    static func split(_ text: String, example: String) throws -> (Double, String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let numberPart = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = trimmed.dropFirst(numberPart.count).trimmingCharacters(in: .whitespaces)
        let isDecimal =
            numberPart.first?.isNumber == true && numberPart.last?.isNumber == true
            && numberPart.filter { $0 == "." }.count <= 1
        guard isDecimal, let number = Double(numberPart), number.isFinite,
            unit.allSatisfy({ $0.isASCII && $0.isLetter })
        else {
            throw Invalid("'\(text)' is not of the form \(example)")
        }
        return (number, unit)
    }
}
