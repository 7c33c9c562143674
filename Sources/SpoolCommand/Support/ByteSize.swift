import Foundation

/// A byte count as people write it on a command line: `2GB`, `500MB`, `750KB`, `1.5GiB`, `4096`.
///
/// Decimal units are powers of 1000 (GB = 10^9 bytes), binary units powers of 1024 (GiB = 2^30 bytes), as
/// disk makers and the IEC define them; units are case-insensitive and may follow a space. A bare number is
/// a byte count and must be whole. Anything else is rejected rather than guessed (`2G`: decimal or binary?).
struct ByteSize: Equatable {
    /// The bytes.
    let bytes: Int64

    private static let units: [String: Double] = [
        "b": 1,
        "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
        "kib": 1024, "mib": 1_048_576, "gib": 1_073_741_824, "tib": 1_099_511_627_776,
    ]

    /// Parses `text`; throws `ArgumentText.Invalid` quoting it and saying what is wrong.
    init(parsing text: String) throws {
        let (number, unit) = try ArgumentText.split(text, example: "2GB, 500MB, 1.5GiB or 4096")
        guard let multiplier = unit.isEmpty ? 1 : Self.units[unit.lowercased()] else {
            throw ArgumentText.Invalid(
                "'\(text)' has an unknown unit '\(unit)'; use B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, "
                    + "TiB (powers of 1024)"
            )
        }
        let bytes: Int64
        if multiplier == 1 {
            // Whole bytes, exactly: no detour through floating point for long byte counts.
            guard let whole = Int64(text.trimmingCharacters(in: .whitespaces).prefix { $0.isASCII && $0.isNumber }),
                Double(whole) == number
            else {
                throw ArgumentText.Invalid("'\(text)' is not a whole number of bytes, or is too large")
            }
            bytes = whole
        } else {
            // 2.3MB is 2299999.9999999995 in floating point: round to the nearest byte.
            let value = (number * multiplier).rounded()
            guard value < 9.2e18 else { throw ArgumentText.Invalid("'\(text)' is too large") }
            bytes = Int64(value)
        }
        guard bytes > 0 else { throw ArgumentText.Invalid("'\(text)' is less than one byte") }
        self.bytes = bytes
    }
}
