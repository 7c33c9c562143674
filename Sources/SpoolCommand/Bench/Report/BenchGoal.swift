/// The target for one row: a bound on the ratio to the reference, or on Spool's own figure.
struct BenchGoal: Sendable, Codable {
    /// What the bound applies to.
    enum Subject: String, Sendable, Codable {
        case ratio
        case value
    }

    var subject: Subject
    /// `true` for "at least", `false` for "at most".
    var atLeast: Bool
    var bound: Double

    static func ratio(atLeast bound: Double) -> BenchGoal { BenchGoal(subject: .ratio, atLeast: true, bound: bound) }
    static func ratio(atMost bound: Double) -> BenchGoal { BenchGoal(subject: .ratio, atLeast: false, bound: bound) }
    static func value(atMost bound: Double) -> BenchGoal { BenchGoal(subject: .value, atLeast: false, bound: bound) }

    /// Whether the medians meet it; `nil` when the figure it bounds is missing.
    func isMet(value: Double?, ratio: Double?) -> Bool? {
        guard let figure = subject == .ratio ? ratio : value else { return nil }
        return atLeast ? figure >= bound : figure <= bound
    }
}
