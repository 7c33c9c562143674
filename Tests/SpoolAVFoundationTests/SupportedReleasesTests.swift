// Driven by the AVFoundation stand-in's player simulator, which exists on Linux only.
#if os(Linux)
import AVFoundationStandIn
import Foundation
import Spool
import SpoolAVFoundation
import SpoolTesting
import XCTest

/// The adapter on every release the package supports (iOS 15 and macOS 12 on): where it uses a newer member
/// it asks first, and the older releases' path plays the same bytes, offline too.
final class SupportedReleasesTests: XCTestCase {
    private let length: Int64 = 600_000

    func testAFullyCachedResourcePlaysOfflineOnEveryRelease() async throws {
        let fixture = try AdapterFixture(test: self)
        let url = fixture.serve("/r/song.mp3", length: length, seed: 41, type: "audio/mpeg")
        let first = await fixture.play(
            url, length: length, seed: 41, script: .linearPlay(length: length), expectedType: "public.mp3")
        XCTAssertTrue(first.passed, "\(first.failures)")
        XCTAssertEqual(first.entireLengthAvailableOnDemand, false, "nothing was cached when the player asked")
        fixture.origin.stop()

        let releases: [(StandInSystem, Bool?)] = [
            (.iOS15, nil), (.macOS12, nil), (.iOS16, true), (.macOS13, true), (.iOS18, true),
        ]
        for (system, expected) in releases {
            let report = await fixture.play(
                url, length: length, seed: 41, script: .offlineReplay(length: length), expectedType: "public.mp3",
                system: system)
            XCTAssertTrue(report.passed, "\(system): \(report.failures)")
            XCTAssertGreaterThanOrEqual(report.bytesPlayed, length, "\(system)")
            XCTAssertEqual(
                report.entireLengthAvailableOnDemand, expected,
                "\(system): the flag is set where the release has it, and never touched where it does not")
        }
    }

    func testAPartlyCachedResourceIsNotMarkedAvailableOnDemand() async throws {
        let fixture = try AdapterFixture(test: self)
        let url = fixture.serve("/r/part.mp3", length: length, seed: 42, type: "audio/mpeg")
        let probe = PlayerScript(requests: [ScriptedRequest(info: true, data: true, offset: 0, length: 2)])
        for system in [StandInSystem.iOS15, .iOS16] {
            let report = await fixture.play(
                url, length: length, seed: 42, script: probe, expectedType: "public.mp3", system: system)
            XCTAssertTrue(report.passed, "\(system): \(report.failures)")
            XCTAssertEqual(report.entireLengthAvailableOnDemand, system == .iOS16 ? false : nil, "\(system)")
        }
    }
}
#endif
