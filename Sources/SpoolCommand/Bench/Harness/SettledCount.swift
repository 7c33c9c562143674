import Foundation

/// A count that other processes or threads may still be raising (bytes a proxy is still fetching for a request
/// its client abandoned): read again every 50 ms until it has not changed for `quiet` seconds.
func settledCount(quiet: TimeInterval, _ read: () throws -> Int64) rethrows -> Int64 {
    var last = try read()
    var stableSince = Date()
    while Date().timeIntervalSince(stableSince) < quiet {
        Thread.sleep(forTimeInterval: 0.05)
        let now = try read()
        if now != last { (last, stableSince) = (now, Date()) }
    }
    return last
}
