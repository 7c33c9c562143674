#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// HTTP dates (RFC 9110, section 5.6.7), by hand: no locale-sensitive formatter, and cheap enough for every
/// response. Sent as IMF-fixdate; read in all three forms a recipient must accept.
package enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since 1970 as IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The seconds since 1970 of an HTTP date: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete
    /// RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) or asctime's (`Sun Nov  6 08:49:37 1994`). `nil` for
    /// anything else, which a recipient ignores.
    package static func parse(_ text: String) -> Int? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        switch words.count {
        case 6 where words[0].hasSuffix(",") && words[5] == "GMT":
            // IMF-fixdate: day month year time.
            return seconds(day: words[1], month: words[2], year: words[3], timeOfDay: words[4], twoDigitYear: false)
        case 4 where words[0].hasSuffix(",") && words[3] == "GMT":
            // RFC 850: day-month-year time.
            let date = words[1].split(separator: "-")
            guard date.count == 3 else { return nil }
            return seconds(day: date[0], month: date[1], year: date[2], timeOfDay: words[2], twoDigitYear: true)
        case 5:
            // asctime: weekday month day time year.
            return seconds(day: words[2], month: words[1], year: words[4], timeOfDay: words[3], twoDigitYear: false)
        default:
            return nil
        }
    }

    private static func seconds(
        day: Substring, month: Substring, year: Substring, timeOfDay: Substring, twoDigitYear: Bool
    ) -> Int? {
        let clock = timeOfDay.split(separator: ":")
        guard let dayNumber = Int(day), (1...31).contains(dayNumber),
            let monthIndex = months.firstIndex(where: { $0 == month }),
            var yearNumber = Int(year), clock.count == 3,
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        if twoDigitYear {
            guard year.count == 2 else { return nil }
            // RFC 9110: a two-digit year that would be more than 50 years in the future is the most recent
            // past year with those digits.
            var now = time(nil)
            var today = tm()
            gmtime_r(&now, &today)
            let thisYear = Int(today.tm_year) + 1900
            yearNumber += thisYear / 100 * 100
            if yearNumber > thisYear + 50 { yearNumber -= 100 }
        } else {
            guard year.count == 4 else { return nil }
        }
        var parts = tm()
        parts.tm_year = Int32(yearNumber - 1900)
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = Int32(dayNumber)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Int(timegm(&parts))
    }
}
