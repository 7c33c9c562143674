import Foundation
import XCTest

@testable import SpoolProxy

/// The edge's decisions, case by case: whom a request is addressed to, what the local network may ask for, and
/// which paths need the control token.
final class RequestAdmissionTests: XCTestCase {
    private let secrets = ProxySecrets(urlKey: nil)
    private let loopback = RequestAdmission.LocalAddress(ip: "127.0.0.1", port: 8080)
    private let media = "/o/proof/encoded/a.mp3"

    private func verdict(
        _ target: String, hosts: [String], authorizations: [String] = [], method: String = "GET",
        local: RequestAdmission.LocalAddress? = nil, configuredHost: String = "127.0.0.1", gate: SharingGate? = nil
    ) -> RequestAdmission.Verdict {
        RequestAdmission(configuredHost: configuredHost, secrets: secrets, gate: gate).verdict(
            method: method, target: target, hosts: hosts, authorizations: authorizations,
            authorities: RequestAdmission.Authorities(local: local ?? loopback, configuredHost: configuredHost))
    }

    func testOnlyTheListenersOwnAddressIsAHostItAnswersFor() {
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080", " 127.0.0.1:8080 "] {
            XCTAssertEqual(verdict(media, hosts: [host]), .admit(media), host)
        }
        let refused = [
            "evil.example:8080", "evil.example", "127.0.0.1:8081", "127.0.0.1", "localhost", "127.0.0.1.nip.io:8080",
            "user@127.0.0.1:8080", "[::1", "127.0.0.1:", "127.0.0.1:x", "", "localhost.:8080", "0.0.0.0:8080",
        ]
        for host in refused {
            XCTAssertEqual(verdict(media, hosts: [host]), .refuse(.misdirected), host)
        }
        XCTAssertEqual(verdict(media, hosts: []), .refuse(.noHost))
        XCTAssertEqual(verdict(media, hosts: ["127.0.0.1:8080", "127.0.0.1:8080"]), .refuse(.noHost))
        // The target's authority, in absolute form, must name the proxy too.
        XCTAssertEqual(
            verdict("http://evil.example:8080" + media, hosts: ["127.0.0.1:8080"]), .refuse(.misdirected))
        XCTAssertEqual(
            verdict("http://localhost:8080" + media, hosts: ["127.0.0.1:8080"]), .admit("http://localhost:8080" + media)
        )
        // Port 80 may go unnamed; a configured host name is the proxy's own; a local network address is its own
        // on that listener, where loopback names are not.
        let port80 = RequestAdmission.LocalAddress(ip: "127.0.0.1", port: 80)
        XCTAssertEqual(verdict(media, hosts: ["localhost"], local: port80), .admit(media))
        XCTAssertEqual(verdict(media, hosts: ["spool.local:8080"], configuredHost: "spool.local"), .admit(media))
        let lan = RequestAdmission.LocalAddress(ip: "192.168.1.20", port: 9000)
        XCTAssertEqual(verdict(media, hosts: ["192.168.1.20:9000"], local: lan), .admit(media))
        XCTAssertEqual(verdict(media, hosts: ["localhost:9000"], local: lan), .refuse(.misdirected))
        // A connection whose address is unknown is addressed by nobody.
        XCTAssertEqual(
            RequestAdmission(configuredHost: "127.0.0.1", secrets: secrets, gate: nil).verdict(
                method: "GET", target: media, hosts: ["127.0.0.1:8080"], authorizations: [], authorities: nil),
            .refuse(.misdirected))
    }

    func testEveryPathButMediaAndThePingNeedsTheControlToken() {
        let host = ["127.0.0.1:8080"]
        let bearer = "Bearer \(secrets.controlToken)"
        for path in ["/o/p/e/a.mp3", "/w/p/e/x.ts", "/k/p/e/key", "/ping", "/ping?x=1"] {
            XCTAssertEqual(verdict(path, hosts: host), .admit(path), path)
        }
        for path in [
            "/statistics", "/preload", "/preload/current", "/downloads?id=a", "/", "/anything", "/../etc/passwd",
        ] {
            XCTAssertEqual(verdict(path, hosts: host), .refuse(.unauthorized), path)
            XCTAssertEqual(verdict(path, hosts: host, authorizations: [bearer]), .admit(path), path)
            XCTAssertEqual(
                verdict(path, hosts: host, authorizations: ["bearer  \(secrets.controlToken)"]), .admit(path), path)
            for wrong in [
                "Bearer " + String(secrets.controlToken.dropLast()), "Bearer \(secrets.controlToken)x",
                "Basic \(secrets.controlToken)", secrets.controlToken, "Bearer",
                "Bearer \(ProxySecrets(urlKey: nil).controlToken)",
            ] {
                XCTAssertEqual(verdict(path, hosts: host, authorizations: [wrong]), .refuse(.unauthorized), wrong)
            }
            XCTAssertEqual(verdict(path, hosts: host, authorizations: [bearer, bearer]), .refuse(.unauthorized))
        }
        // The Host comes first: the right token under another name is still refused.
        XCTAssertEqual(
            verdict("/statistics", hosts: ["evil.example:8080"], authorizations: [bearer]), .refuse(.misdirected))
    }

    func testTheLocalNetworkReachesSharedMediaOnlyAndNeverTheControlAPI() {
        let gate = SharingGate()
        let lan = RequestAdmission.LocalAddress(ip: "192.168.1.20", port: 9000)
        let host = ["192.168.1.20:9000"]
        let bearer = "Bearer \(secrets.controlToken)"
        XCTAssertEqual(verdict(gate.scope + media, hosts: host, local: lan, gate: gate), .admit(media))
        XCTAssertEqual(verdict(media, hosts: host, local: lan, gate: gate), .refuse(.shared(.noToken)))
        XCTAssertEqual(
            verdict(gate.scope + "/statistics", hosts: host, authorizations: [bearer], local: lan, gate: gate),
            .refuse(.shared(.notShared)))
        XCTAssertEqual(
            verdict(gate.scope + media, hosts: host, method: "PUT", local: lan, gate: gate), .refuse(.shared(.method)))
        XCTAssertEqual(
            verdict(gate.scope + media, hosts: ["evil.example:9000"], local: lan, gate: gate), .refuse(.misdirected))
    }
}
