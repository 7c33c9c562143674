import XCTest

@testable import SpoolProxy

/// Which addresses count as the local network's when the proxy picks where to share itself.
final class LocalNetworkAddressTests: XCTestCase {
    func testPrivateAndLinkLocalAddressesAreTheLocalNetworks() {
        let cases: [(String, Bool)] = [
            ("192.168.1.20", true), ("10.0.0.5", true), ("172.16.0.1", true), ("172.31.255.254", true),
            ("169.254.10.1", true), ("172.15.0.1", false), ("172.32.0.1", false), ("127.0.0.1", false),
            ("8.8.8.8", false), ("100.64.0.1", false), ("not an address", false), ("10.0.0", false),
        ]
        for (address, local) in cases {
            XCTAssertEqual(LocalNetworkAddress.isLocalNetwork(address), local, address)
        }
    }

    func testTheAddressFoundIsALocalNetworkOneOrNone() {
        // This machine may have no such interface; whatever is found must qualify.
        if let found = LocalNetworkAddress.find() {
            XCTAssertTrue(LocalNetworkAddress.isLocalNetwork(found), found)
        }
    }
}
