import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// IMF-fixdate formatting (RFC 9110 §5.6.7), done by hand to avoid locale-sensitive formatters.
enum OriginDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// For example "Sun, 06 Nov 1994 08:49:37 GMT".
    static func format(epochSeconds: Int) -> String {
        var time = time_t(epochSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = weekdays[Int(parts.tm_wday)]
        let month = months[Int(parts.tm_mon)]
        let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        return "\(weekday), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(clock) GMT"
    }

    static func now() -> String {
        format(epochSeconds: Int(Date().timeIntervalSince1970))
    }
}
