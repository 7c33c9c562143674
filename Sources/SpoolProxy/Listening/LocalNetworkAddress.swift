import NIOCore
import NIOPosix

/// The address of this device on its local network, where an AirPlay receiver or another device can reach
/// it: the IPv4 address of Wi-Fi or Ethernet, never loopback and never a cellular interface.
enum LocalNetworkAddress {
    /// The best candidate, or `nil` when the device is on no local network.
    static func find() -> String? {
        guard let devices = try? System.enumerateDevices() else { return nil }
        let candidates = devices.compactMap { device -> (name: String, address: String)? in
            guard case .v4 = device.address, let address = device.address?.ipAddress,
                isLocalNetwork(address), !isCellular(device.name)
            else { return nil }
            return (device.name, address)
        }
        // Apple names Wi-Fi `en0` on iPhones; then any other Ethernet-like interface, in name order.
        return candidates.sorted {
            rank($0.name) < rank($1.name) || (rank($0.name) == rank($1.name) && $0.name < $1.name)
        }
        .first?.address
    }

    /// Private (RFC 1918) and link-local IPv4 addresses: a local network's, not the internet's.
    static func isLocalNetwork(_ address: String) -> Bool {
        let octets = address.split(separator: ".").compactMap { Int($0) }
        guard octets.count == 4 else { return false }
        switch (octets[0], octets[1]) {
        case (10, _), (192, 168), (169, 254): return true
        case (172, let second): return (16...31).contains(second)
        default: return false
        }
    }

    /// Apple's cellular interfaces (`pdp_ip0`): a carrier's network, not the user's.
    private static func isCellular(_ name: String) -> Bool {
        name.hasPrefix("pdp_ip")
    }

    private static func rank(_ name: String) -> Int {
        if name == "en0" { return 0 }
        if name.hasPrefix("en") || name.hasPrefix("eth") || name.hasPrefix("wlan") { return 1 }
        return 2
    }
}
