@testable import Spool

extension EngineState {
    /// `step` as the driver takes it (`ResourceEngine.nextPart`): a step that would start requests first looks
    /// at another process's record (a table test has none, so the look adopts nothing), then steps again.
    mutating func driverStep(
        reader id: Int, position: Int64, link: LinkEstimate = LinkEstimate(), readLimit: Int64? = nil
    ) -> Step {
        let first = step(reader: id, position: position, link: link, readLimit: readLimit)
        guard case .lookElsewhere = first else { return first }
        lookedElsewhere(reader: id)
        return step(reader: id, position: position, link: link, readLimit: readLimit)
    }
}
