import Foundation

/// One line of the `spool bench run` table: Spool's figure and the reference's, each the median of the runs.
struct BenchRow: Sendable {
    /// "1", "2a", … as in the list of scenarios.
    var id: String
    /// What is measured, for the table.
    var title: String
    var unit: BenchUnit
    /// Whether a larger figure is the better one (throughput) or a smaller (times, bytes, errors).
    var higherIsBetter: Bool
    /// Spool's figure, one per run.
    var spool: [Double] = []
    /// The reference's name ("nginx direct"), or `nil` for rows measured against a goal only.
    var referenceName: String?
    /// The reference's figure, one per run.
    var reference: [Double] = []
    var goal: BenchGoal?
    /// Anything the reader must know to trust the figure (e.g. origin bytes during a warm run).
    var notes: [String] = []
    /// The origin requests and connections behind the figures, where the scenario counts them.
    var originCost: OriginCost?

    static func median(_ figures: [Double]) -> Double? {
        guard !figures.isEmpty else { return nil }
        let sorted = figures.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var spoolMedian: Double? { Self.median(spool) }
    var referenceMedian: Double? { Self.median(reference) }

    /// Spool's median ÷ the reference's; `nil` without a reference or when the reference is 0.
    var ratio: Double? {
        guard let spool = spoolMedian, let reference = referenceMedian, reference != 0 else { return nil }
        return spool / reference
    }

    /// The ratio turned so that below 1 always means Spool does worse, for finding the worst row.
    var normalizedRatio: Double? {
        guard let ratio else { return nil }
        if higherIsBetter { return ratio }
        return ratio == 0 ? Double.infinity : 1 / ratio
    }

    var goalMet: Bool? { goal?.isMet(value: spoolMedian, ratio: ratio) }

    /// The goal as text: "≥ 0.80 × ref", "≤ 64 MiB".
    var goalText: String {
        guard let goal else { return "" }
        let bound =
            goal.subject == .ratio ? String(format: "%.2f", goal.bound) + " × ref" : unit.formatBound(goal.bound)
        return (goal.atLeast ? "≥ " : "≤ ") + bound
    }
}
