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
    /// back to where they were. So do those the read comes to through stored bytes and running requests, within
    /// `FetchPolicy.joinDistance`: it joins them there. Cancelled, their bytes in flight were lost and asked for
    /// again at once (a seek a little before the last one, over the emulated mobile link: 143 KB twice).
    mutating func dropAbandoned(forPlaybackReadAt position: Int64) {
        guard let info, position < Self.tailStart(ofLength: info.length) else { return }
        expireAllAbandoned(sparing: abandonedAhead(of: position))
    }

    /// The abandoned requests a read at `position` reaches through stored bytes and requests, each starting
    /// where the bytes before it end, within `FetchPolicy.joinDistance`.
    private func abandonedAhead(of position: Int64) -> Set<Int> {
        var (reach, found) = (position, Set<Int>())
        while reach - position < policy.joinDistance {
            if let present = stored.range(containing: reach) {
                reach = present.upperBound
            } else if let (id, fetch) = fetches.first(where: { $0.value.position <= reach && reach < $0.value.end }) {
                if fetch.abandonedAt != nil { found.insert(id) }
                reach = fetch.end
            } else {
                break
            }
        }
        return found
    }

    /// Cancels every request players abandoned on this resource (see `expireAbandoned`), and every first
    /// request asking for a read's rest that no reader joined (`Fetch.unjoinedEnd`): nothing will join them.
    /// Those in `spared` are left as they are.
    mutating func expireAllAbandoned(sparing spared: Set<Int> = []) {
        for id in fetches.keys.sorted() where !spared.contains(id) {
            outgrewItsFirstSize(fetch: id, at: 0, anywhere: true)
            expireAbandoned(fetch: id)
        }
    }
}
