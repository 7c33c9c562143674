import Foundation

/// Applies a profile's `LinkFaultSchedule` on its own thread, period after period, until the emulator stops.
struct LinkFaultDriver {
    let core: LinkCore
    let schedule: LinkFaultSchedule

    func run() {
        var period = 0
        while !core.isStopping {
            for event in schedule.events(inPeriod: period) {
                guard sleep(until: core.started + LinkClock.nanoseconds(event.time)) else { return }
                switch event.kind {
                case .blackout(let seconds): core.blackout(seconds: seconds)
                case .resetAll: core.resetAllConnections()
                }
            }
            period += 1
        }
    }

    /// Sleeps in slices so stopping is noticed; false when the emulator stopped first.
    private func sleep(until deadline: UInt64) -> Bool {
        while true {
            if core.isStopping { return false }
            let now = LinkClock.now()
            if now >= deadline { return true }
            LinkClock.sleep(min(deadline - now, LinkCore.slice))
        }
    }
}
