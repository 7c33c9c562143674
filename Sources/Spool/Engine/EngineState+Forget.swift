/// Stored bytes let go, for damage or eviction: the one event that changes both the stored bytes and the
/// blocks' checks.
extension EngineState {
    /// Stops claiming `ranges` (damaged or evicted): readers that need them fetch them again, their blocks
    /// are unchecked, and their checksum slots are to be cleared (`BlockChecks.discards`).
    mutating func forget(_ ranges: [Range<Int64>]) {
        lost(ranges)
        checks.forget(ranges)
    }
}
