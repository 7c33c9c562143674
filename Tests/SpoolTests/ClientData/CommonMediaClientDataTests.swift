import Foundation
import XCTest

@testable import Spool

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CommonMediaClientData`: parsing what players send, writing it as CTA-5004 does, in headers or a query item;
/// `ClientDataSources`: what a player's request and Spool's own carry under a policy.
final class CommonMediaClientDataTests: XCTestCase {
    func testPairsAreParsedWithQuotedCommasFlagsAndBadKeysDropped() throws {
        let data = try XCTUnwrap(CommonMediaClientData(parsing: "sid=\"a,b\", br=3200,su,BAD KEY=1,com.example-k=7"))
        XCTAssertEqual(data.entries, ["sid": "\"a,b\"", "br": "3200", "su": "", "com.example-k": "7"])
        XCTAssertEqual(data.serialized, "br=3200,com.example-k=7,sid=\"a,b\",su")
        XCTAssertEqual(
            data.headerFields,
            ["CMCD-Object": "br=3200", "CMCD-Request": "com.example-k=7,su", "CMCD-Session": "sid=\"a,b\""])
        XCTAssertNil(CommonMediaClientData(parsing: ""))
        let injected = try XCTUnwrap(CommonMediaClientData(parsing: "sid=\"a\r\nX-Evil: 1\",br=800"))
        XCTAssertEqual(injected.entries, ["br": "800"], "a pair with a line break is dropped, never relayed")
        XCTAssertNil(CommonMediaClientData(parsing: "sid=\"unterminated"))
        let fromFields = try XCTUnwrap(
            CommonMediaClientData(headerFields: ["cmcd-session": "sid=\"x\"", "Cmcd-Status": "bs", "Range": "bytes=0-"])
        )
        XCTAssertEqual(fromFields.serialized, "bs,sid=\"x\"")
        XCTAssertNil(CommonMediaClientData(headerFields: ["Range": "bytes=0-"]))
    }

    func testItGoesInHeaderFieldsOrOneQueryItemReplacingWhatWasThere() throws {
        let data = try XCTUnwrap(CommonMediaClientData(parsing: "br=800,sid=\"s\""))
        var request = URLRequest(url: URL(string: "https://cdn.example.com/a.mp4?token=t&CMCD=old")!)
        request.setValue("nrr=\"0-1\"", forHTTPHeaderField: "CMCD-Request")
        data.apply(to: &request)
        XCTAssertEqual(request.value(forHTTPHeaderField: "CMCD-Object"), "br=800")
        XCTAssertEqual(request.value(forHTTPHeaderField: "CMCD-Session"), "sid=\"s\"")
        XCTAssertNil(request.value(forHTTPHeaderField: "CMCD-Request"), "the old field is replaced")
        var query = data
        query.transmission = .query
        var queried = URLRequest(url: URL(string: "https://cdn.example.com/a.mp4?token=t&CMCD=old")!)
        query.apply(to: &queried)
        XCTAssertEqual(
            queried.url?.absoluteString, "https://cdn.example.com/a.mp4?token=t&CMCD=br%3D800%2Csid%3D%22s%22")
    }

    func testAPlayersRequestLosesItsNextRequestKeysAndSpoolsOwnAreLabelled() throws {
        var sources = ClientDataSources()
        let player = try XCTUnwrap(CommonMediaClientData(parsing: "br=800,nor=\"b.m4s\",nrr=\"0-9\",sid=\"s\",su"))
        sources.note(player: true, data: player, ahead: nil)
        let policy = ClientDataPolicy()
        XCTAssertEqual(sources.data(forPlayer: true, policy: policy, mimeType: nil)?.serialized, "br=800,sid=\"s\",su")
        sources.note(player: false, data: nil, ahead: .download)
        let own = try XCTUnwrap(sources.data(forPlayer: nil, policy: policy, mimeType: "audio/mpeg"))
        XCTAssertEqual(own.serialized, "io.spool-purpose=\"download\",ot=a,sid=\"s\"")
        XCTAssertEqual(
            sources.data(forPlayer: false, policy: ClientDataPolicy(excludedKeys: ["sid"]), mimeType: nil)?.serialized,
            "io.spool-purpose=\"download\"")
        XCTAssertNil(sources.data(forPlayer: false, policy: ClientDataPolicy(labelsOwnRequests: false), mimeType: nil))
        sources.note(player: false, data: nil, ahead: .preload)
        XCTAssertEqual(
            sources.data(forPlayer: false, policy: policy, mimeType: "video/mp4")?.serialized,
            "io.spool-purpose=\"preload\",ot=v,sid=\"s\",sta=d,v=2", "version 2's preloading state")
        XCTAssertNil(sources.data(forPlayer: true, policy: .off, mimeType: nil))
        // The player measured its link to the cache: the origin's request carries the cache's rate, or none.
        let measuring = try XCTUnwrap(CommonMediaClientData(parsing: "bl=2100,br=800,mtp=250000"))
        sources.note(player: true, data: measuring, ahead: nil)
        XCTAssertEqual(
            sources.data(forPlayer: true, policy: policy, mimeType: nil, originBytesPerSecond: 1_260_000)?.serialized,
            "bl=2100,br=800,mtp=10100")
        XCTAssertEqual(sources.data(forPlayer: true, policy: policy, mimeType: nil)?.serialized, "bl=2100,br=800")
        var silent = ClientDataSources()
        silent.note(player: true, data: nil, ahead: nil)
        XCTAssertNil(silent.data(forPlayer: nil, policy: policy, mimeType: nil), "nothing made up for a silent player")
    }
}
