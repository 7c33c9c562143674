import Foundation

/// The results of `spool bench run`: the conditions, then every row, as a Markdown table for people (and the
/// README) and as JSON for tools.
struct BenchReport: Sendable {
    var plan: BenchPlan
    /// "release" or "debug": a debug build's figures say little about the product.
    var build: String
    var cores: Int
    var started: Date
    var seconds: Double = 0
    /// Lines printed above the table: what the ratios compare and under which conditions.
    var conditions: [String] = []
    var rows: [BenchRow] = []

    /// The row whose normalized ratio (below 1 = Spool worse) is lowest.
    var worstRatio: BenchRow? {
        rows.filter { $0.normalizedRatio != nil }.min { $0.normalizedRatio! < $1.normalizedRatio! }
    }

    /// The table with its header lines.
    func rendered() -> String {
        var lines = conditions
        lines.append("")
        // What the origin paid, where counted: Spool / the reference / the nginx slice proxy.
        let costs = rows.contains { $0.originCost != nil }
        let header =
            ["#", "measure", "better", "Spool", "reference", "Spool ÷ ref", "goal", "met"]
            + (costs ? ["origin requests S / ref / slice", "connections"] : [])
        let cells = rows.map { row -> [String] in
            let reference =
                row.referenceName.map { name in
                    "\(name) " + (row.referenceMedian.map(row.unit.format) ?? "n/a")
                } ?? "—"
            let met = row.goalMet.map { $0 ? "yes" : "**no**" } ?? ""
            return [
                row.id, row.title, row.higherIsBetter ? "higher" : "lower",
                row.spoolMedian.map(row.unit.format) ?? "n/a", reference,
                row.ratio.map { String(format: "%.2f", $0) } ?? "—", row.goalText, met,
            ] + (costs ? [row.originCost?.requestsText ?? "", row.originCost?.connectionsText ?? ""] : [])
        }
        let widths = header.indices.map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        func line(_ fields: [String]) -> String {
            "| "
                + fields.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        lines.append(line(header))
        lines.append("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
        lines += cells.map(line)
        let notes = rows.flatMap { row in row.notes.map { "\(row.id): \($0)" } }
        if !notes.isEmpty { lines += [""] + notes }
        if let worst = worstRatio, let ratio = worst.ratio {
            lines.append("")
            lines.append(
                "worst ratio: \(worst.id) \(worst.title): \(String(format: "%.2f", ratio)) "
                    + "(\(worst.higherIsBetter ? "higher" : "lower") is better)")
        }
        lines.append(String(format: "took %.0f s", seconds))
        return lines.joined(separator: "\n")
    }

    /// Several reports (one per link profile) as one JSON document: the report itself when there is one, an
    /// array of them otherwise.
    static func json(_ reports: [BenchReport]) throws -> Data {
        guard reports.count != 1 else { return try reports[0].json() }
        let documents = try reports.map { try JSONSerialization.jsonObject(with: $0.json()) }
        return try JSONSerialization.data(withJSONObject: documents, options: [.prettyPrinted, .sortedKeys])
    }

    /// The same figures as JSON, in base units (bytes, seconds), with every run's figure beside the medians.
    func json() throws -> Data {
        struct Side: Encodable {
            var name: String
            var median: Double?
            var runs: [Double]
        }
        struct Row: Encodable {
            var id, title, unit: String
            var higherIsBetter: Bool
            var spool: Side
            var reference: Side?
            var ratio: Double?
            var ratioMeaning: String?
            var goal: String?
            var goalMet: Bool?
            var notes: [String]
            var originCost: OriginCost?
        }
        struct Document: Encodable {
            var command, mode, build: String
            var cores: Int
            var started: Date
            var seconds: Double
            var plan: BenchPlan
            var conditions: [String]
            var rows: [Row]
            var worstRatio: String?
        }
        let document = Document(
            command: "spool bench run" + (plan.mode == "full" ? "" : " --\(plan.mode)"), mode: plan.mode,
            build: build, cores: cores, started: started, seconds: seconds, plan: plan, conditions: conditions,
            rows: rows.map { row in
                Row(
                    id: row.id, title: row.title, unit: row.unit.rawValue, higherIsBetter: row.higherIsBetter,
                    spool: Side(name: "spool", median: row.spoolMedian, runs: row.spool),
                    reference: row.referenceName.map {
                        Side(name: $0, median: row.referenceMedian, runs: row.reference)
                    },
                    ratio: row.ratio, ratioMeaning: row.referenceName.map { "spool ÷ \($0)" },
                    goal: row.goal == nil ? nil : row.goalText, goalMet: row.goalMet, notes: row.notes,
                    originCost: row.originCost)
            },
            worstRatio: worstRatio?.id)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(document)
    }
}
