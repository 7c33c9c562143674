/// What a version change owes on disk, in order: the record stops claiming the old bytes, then the data file
/// loses them once no file slice of the old version is out, before any byte of the new version is written. So
/// no crash can leave a record that vouches for mixed bytes, and no slice can read bytes of another version. A
/// version dropped without a new one (`spool rm` on a resource in use) removes both files instead.
///
/// The state decides the next step (`resetStep`); the driver (`VersionReset`) does it on the entry's write
/// queue and reports it done (`resetStepDone`).
extension EngineState {
    /// How far the last version change's disk work has come.
    struct ResetProgress: Equatable {
        /// Whether the record no longer claims old bytes.
        var recordCleared = false
    }

    /// The next step of a version change's disk work.
    enum ResetStep: Equatable {
        /// Save a record of this version that claims nothing.
        case clearRecord(ContentInfo)
        /// Remove the record and the data file: the resource is unknown now.
        case removeFiles
        /// Wait for the old version's file slices to come back (they have been revoked).
        case waitForSlices
        /// Empty the data file.
        case emptyFile
    }

    /// Whether a version change's disk work is still owed: no byte is written, and no other process's record
    /// taken in, until it is done.
    var isResetting: Bool { reset != nil }

    /// The next step of what the last version change owes, `slicesOut` saying whether file slices are lent
    /// (no slice is lent of a version with nothing stored: they are the old version's); `nil` when it owes
    /// nothing.
    func resetStep(slicesOut: Bool) -> ResetStep? {
        guard let reset else { return nil }
        guard reset.recordCleared else {
            guard let info else { return .removeFiles }
            return .clearRecord(info)
        }
        return slicesOut ? .waitForSlices : .emptyFile
    }

    /// Records that the driver did `step` for the version numbered `done`, unless another version came
    /// meanwhile: then its reset starts over, from the record. Returns whether it recorded it.
    @discardableResult
    mutating func resetStepDone(_ step: ResetStep, versionNumber done: Int) -> Bool {
        guard versionNumber == done, reset != nil else { return false }
        switch step {
        case .clearRecord: reset?.recordCleared = true
        case .removeFiles, .emptyFile: reset = nil
        case .waitForSlices: break
        }
        return true
    }
}
