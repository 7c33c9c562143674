import Foundation
import XCTest

@testable import SpoolProxy

/// Which resources the proxy looks into for a playlist before answering: not media the origin names as such,
/// whose first bytes would otherwise cost a read of their own before the first byte goes out.
final class PlaylistSniffTests: XCTestCase {
    func testMediaTypesAreNotLookedIntoAndVagueOnesAre() {
        for type in ["video/mp4", "audio/mpeg", " Video/MP2T ", "image/jpeg", "audio/mp4; codecs=mp4a.40.2"] {
            XCTAssertTrue(ProxyResponder.namesMedia(type), type)
        }
        for type in ["text/plain", "application/octet-stream", "application/vnd.apple.mpegurl", "binary/octet-stream"] {
            XCTAssertFalse(ProxyResponder.namesMedia(type), type)
        }
        XCTAssertFalse(ProxyResponder.namesMedia(nil), "no type: looked at")
    }
}
