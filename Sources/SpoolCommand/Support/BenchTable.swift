import Foundation

/// Timings of named steps over several runs, printed as median, minimum and maximum, with the bytes the
/// process read during each step (the median of the runs; Linux only).
struct BenchTable {
    private struct Row {
        var name: String
        var seconds: [Double] = []
        var bytesRead: [Int64] = []
        var note = ""
    }

    let runs: Int
    private var rows: [Row] = []

    init(runs: Int) {
        self.runs = runs
    }

    /// Runs `body`, adding its duration to the step `name`.
    mutating func time<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let (startTime, startRead) = (DispatchTime.now().uptimeNanoseconds, ProcessIO.bytesRead())
        let result = try body()
        record(name, since: startTime, startRead)
        return result
    }

    /// Runs `body`, adding its duration to the step `name`.
    mutating func timeAsync(_ name: String, _ body: () async throws -> Void) async rethrows {
        let (startTime, startRead) = (DispatchTime.now().uptimeNanoseconds, ProcessIO.bytesRead())
        try await body()
        record(name, since: startTime, startRead)
    }

    /// Sets the text shown after the step `name` (what it returned).
    mutating func note(_ name: String, _ text: String) {
        if let index = rows.firstIndex(where: { $0.name == name }) { rows[index].note = text }
    }

    private mutating func record(_ name: String, since startTime: UInt64, _ startRead: Int64?) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - startTime) / 1e9
        let read = ProcessIO.bytesRead().flatMap { end in startRead.map { end - $0 } }
        if !rows.contains(where: { $0.name == name }) { rows.append(Row(name: name)) }
        let index = rows.firstIndex { $0.name == name }!
        rows[index].seconds.append(seconds)
        if let read { rows[index].bytesRead.append(read) }
    }

    /// The table as text.
    func rendered() -> String {
        let width = max(24, rows.map(\.name.count).max() ?? 0) + 2
        var lines = [
            "step".padding(toLength: width, withPad: " ", startingAt: 0)
                + ["median", "min", "max", "read"].map(Self.column).joined() + "  result"
        ]
        for row in rows {
            let sorted = row.seconds.sorted()
            let read =
                row.bytesRead.isEmpty ? "n/a" : ByteCountText.format(row.bytesRead.sorted()[row.bytesRead.count / 2])
            lines.append(
                row.name.padding(toLength: width, withPad: " ", startingAt: 0)
                    + [
                        Self.duration(sorted[sorted.count / 2]), Self.duration(sorted[0]),
                        Self.duration(sorted[sorted.count - 1]), read,
                    ]
                    .map(Self.column).joined()
                    + (row.note.isEmpty ? "" : "  " + row.note))
        }
        lines.append(
            "\nread: what the process read through system calls during the step (rchar), from disk or page cache")
        return lines.joined(separator: "\n")
    }

    private static func column(_ text: String) -> String {
        String(repeating: " ", count: max(1, 12 - text.count)) + text
    }

    private static func duration(_ seconds: Double) -> String {
        seconds >= 1 ? String(format: "%.2f s", seconds) : String(format: "%.2f ms", seconds * 1000)
    }
}
