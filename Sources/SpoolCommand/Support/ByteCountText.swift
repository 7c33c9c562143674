import Foundation

/// Byte counts for people, in SI units as `--max-size` reads them (`1 MB` = 1 000 000 bytes, `kB` = 1000):
/// one convention in and out, so 5 000 000 bytes show as `5.0 MB`, the size a user gave.
enum ByteCountText {
    static func format(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}
