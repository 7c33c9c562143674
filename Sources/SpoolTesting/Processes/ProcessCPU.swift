import Foundation

/// CPU time of processes from `/proc` (Linux): what a server spent, user and system together, to compare
/// servers by work per byte rather than by wall time, which the client and the scheduler blur.
public enum ProcessCPU {
    /// User plus system seconds `pid` and its children (those it started, such as nginx's workers) have
    /// used so far, or `nil` where `/proc` cannot tell.
    public static func seconds(ofProcessTree pid: Int32) -> Double? {
        guard let own = seconds(of: pid) else { return nil }
        return children(of: pid).reduce(own) { $0 + (seconds(of: $1) ?? 0) }
    }

    /// User plus system seconds of `pid` alone: the nanoseconds its threads ran (`schedstat`), else the
    /// clock ticks of `stat`, too coarse (10 ms) for a read that lasts a fraction of a second.
    public static func seconds(of pid: Int32) -> Double? {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        let running = threads.compactMap { thread -> Double? in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first
            else { return nil }
            return Double(first)
        }
        if !running.isEmpty { return running.reduce(0, +) / 1e9 }
        guard let fields = statFields(of: pid), fields.count > 14,
            let user = Double(fields[13]), let system = Double(fields[14])
        else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The processes whose parent is `pid`.
    public static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let fields = statFields(of: child), fields.count > 3 else { return false }
            return Int32(fields[3]) == pid
        }
    }

    /// The fields of `/proc/PID/stat`, the command name (which may hold spaces) counted as one.
    private static func statFields(of pid: Int32) -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")")
        else { return nil }
        let rest = text[text.index(after: close)...].split(separator: " ").map(String.init)
        return [String(text[..<open]).trimmingCharacters(in: .whitespaces), String(text[open...close])] + rest
    }
}
