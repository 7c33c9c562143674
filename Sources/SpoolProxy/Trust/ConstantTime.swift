/// Comparisons of secrets (tokens, proofs) that take as long whatever the bytes: a comparison that stopped at
/// the first difference would tell a patient caller, byte by byte, how much of a guess is right.
enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; the time depends on their lengths only.
    static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
