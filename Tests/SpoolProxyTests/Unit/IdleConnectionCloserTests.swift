import NIOCore
import NIOEmbedded
import XCTest

@testable import SpoolProxy

/// The proxy closes a connection that neither reads nor starts a write for its timeout, and only then.
final class IdleConnectionCloserTests: XCTestCase {
    func testReadsAndWritesKeepAConnectionOpenAndSilenceClosesIt() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: IdleConnectionCloser(timeout: .seconds(10)), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        XCTAssertTrue(channel.isActive)

        loop.advanceTime(by: .seconds(9))
        XCTAssertTrue(channel.isActive, "not yet idle for 10 s")
        try channel.writeInbound(ByteBuffer(string: "GET"))
        loop.advanceTime(by: .seconds(9))
        XCTAssertTrue(channel.isActive, "a read 9 s ago")
        try channel.writeOutbound(ByteBuffer(string: "200"))
        loop.advanceTime(by: .seconds(9))
        XCTAssertTrue(channel.isActive, "a write 9 s ago")
        loop.advanceTime(by: .seconds(2))
        XCTAssertFalse(channel.isActive, "11 s without a read or a write")
    }

    func testARemovedCloserClosesNothing() throws {
        let loop = EmbeddedEventLoop()
        let closer = IdleConnectionCloser(timeout: .seconds(10))
        let channel = EmbeddedChannel(handler: closer, loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.pipeline.syncOperations.removeHandler(closer).wait()
        loop.advanceTime(by: .seconds(60))
        XCTAssertTrue(channel.isActive)
        _ = try channel.finish(acceptAlreadyClosed: true)
    }
}
