/// Requests a player abandoned, when the player's next read goes elsewhere.
extension EngineState {
    /// Where a resource's tail starts for `dropAbandoned`: its last 5 %, and at least its last 2 MiB. An
    /// MP4's `moov` is well under 1 % of the file, larger on long files.
    static func tailStart(ofLength length: Int64) -> Int64 {
        max(0, length - max(2 << 20, length / 20))
    }

    /// Cancels the requests players abandoned on this resource now that a player's read starts requests at
    /// `position`: the player went elsewhere, and they would take the link its first bytes wait for. A read
    /// of the resource's tail keeps them: players read an index there (an MP4's `moov` at the end) and come
    /// back to where they were.
    mutating func dropAbandoned(forPlaybackReadAt position: Int64) {
        guard let info, position < Self.tailStart(ofLength: info.length) else { return }
        expireAllAbandoned()
    }

    /// Cancels every request players abandoned on this resource (see `expireAbandoned`), and every first
    /// request asking for a read's rest that no reader joined (`Fetch.unjoinedEnd`): nothing will join them.
    mutating func expireAllAbandoned() {
        for id in fetches.keys.sorted() {
            outgrewItsFirstSize(fetch: id, at: 0, anywhere: true)
            expireAbandoned(fetch: id)
        }
    }
}
