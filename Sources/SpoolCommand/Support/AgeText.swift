import Foundation

/// An age as people write it on a command line: `30d`, `12h`, `45m`, `90s` (`1.5h` too).
///
/// The unit is required: a bare `30` could mean seconds, minutes or days.
struct AgeText: Equatable {
    /// The age in seconds.
    let seconds: TimeInterval

    private static let units: [String: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]

    /// Parses `text`; throws `ArgumentText.Invalid` quoting it and saying what is wrong.
    init(parsing text: String) throws {
        let (number, unit) = try ArgumentText.split(text, example: "30d, 12h, 45m or 90s")
        guard !unit.isEmpty else {
            throw ArgumentText.Invalid("'\(text)' needs a unit: s, m, h or d (for example 30d)")
        }
        guard let multiplier = Self.units[unit.lowercased()] else {
            throw ArgumentText.Invalid("'\(text)' has an unknown unit '\(unit)'; use s, m, h or d (for example 30d)")
        }
        let seconds = number * multiplier
        guard seconds >= 1 else { throw ArgumentText.Invalid("'\(text)' is less than one second") }
        guard seconds < 1e15 else { throw ArgumentText.Invalid("'\(text)' is too large") }
        self.seconds = seconds
    }
}
