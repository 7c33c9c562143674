import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// A request only a read ahead of playback waits for pauses while a player waits for its first bytes
/// elsewhere, and goes on as soon as a player reads what it brings: the player's read wakes it, and nothing
/// else does here (the origin delivers a chunk only when the test says, and the other player waits for ever).
final class PauseForPlaybackTests: XCTestCase {
    func testAPausedPreloadGoesOnWhenAPlayerJoinsIt() async throws {
        let origin = GatedOrigin(content: randomBytes(count: 1_000_000, seed: 5))
        let directory = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        // No stall is noticed meanwhile: a retry would be an event that wakes the pause too.
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: origin, fetchPolicy: FetchPolicy(stallTimeout: 3600)))
        let track = URL(string: "gated:/track")!
        let silent = URL(string: "gated:/silent")!
        var reads = origin.reads.makeAsyncIterator()

        // A read ahead of playback sends its request; its body waits for the test.
        let preload = Task { _ = try await collect(cache.read(Resource(url: track), purpose: .prefetch())) }
        let first = await reads.next()
        XCTAssertEqual(first, "/track")
        // Another player starts where the origin never answers: playback needs the link.
        let other = Task { _ = try await collect(cache.read(silent, length: 1_000)) }
        while let path = await reads.next(), path != "/silent" {}
        let waiting = await arrives("the player waits for its first bytes") {
            await cache.gate.until { $0.startsWaiting > 0 }
        }
        XCTAssertTrue(waiting)
        // The preload's first chunk arrives (its first request's: the next piece's may be sent already), and its
        // request pauses with the chunk in hand.
        origin.release(chunks: 1, from: 0)
        let engine = try XCTUnwrap(cache.openEngine(for: Resource(url: track)))
        let paused = await arrives("the preload's request pauses") {
            await engine.context.untilWaiting(in: \.holdWaiters)
        }
        XCTAssertTrue(paused)
        // A player reads that chunk: its read joins the paused request, which goes on.
        let played = try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask { try await collect(cache.read(track, length: Int64(GatedOrigin.chunkSize))) }
            group.addTask {
                // Not a measurement: a bound on how long a missing wake-up may hang the test.
                try await Task.sleep(for: .seconds(20))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        XCTAssertEqual(played, origin.content.prefix(GatedOrigin.chunkSize), "the pause woke for the player's read")
        other.cancel()
        preload.cancel()
        _ = await (other.result, preload.result)
    }
}

extension PauseForPlaybackTests {
    /// A player waiting for a new resource's first answer (its length and type) is a start too: a preload's
    /// request pauses meanwhile, and goes on once the player is gone and the quiet period has passed.
    func testAPreloadPausesWhileAPlayerWaitsForANewResourcesFirstAnswer() async throws {
        let origin = GatedOrigin(content: randomBytes(count: 1_000_000, seed: 6))
        let directory = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: origin, fetchPolicy: FetchPolicy(stallTimeout: 3600)))
        let track = URL(string: "gated:/track")!
        var reads = origin.reads.makeAsyncIterator()
        let preload = Task { try await collect(cache.read(Resource(url: track), purpose: .prefetch())) }
        let first = await reads.next()
        XCTAssertEqual(first, "/track")

        // A player opens a resource its origin says nothing of yet.
        let player = Task { _ = try await collect(cache.read(URL(string: "gated:/unknown")!, length: 1_000)) }
        let starting = await arrives("the player's wait for a first answer counts as a start") {
            await cache.gate.until { $0.startsWaiting > 0 }
        }
        guard starting else { return XCTFail("a player waiting for a first answer is no start") }
        // The preload's next chunk is held back.
        origin.release(chunks: 1, from: 0)
        let engine = try XCTUnwrap(cache.openEngine(for: Resource(url: track)))
        let held = await arrives("the preload's request pauses") {
            await engine.context.untilWaiting(in: \.holdWaiters)
        }
        XCTAssertTrue(held)
        // The player leaves: after the quiet period the preload goes on, and ends with every byte.
        player.cancel()
        _ = await player.result
        origin.releaseAll()
        let bytes = try await preload.value
        XCTAssertEqual(bytes, origin.content)
    }
}

/// An origin whose bodies deliver a chunk only when the test releases one to the read of that offset
/// (`release(chunks:from:)`), or every chunk (`releaseAll()`); that never answers a read of `/silent`, and never
/// tells what `/unknown` is; it stops reading an unread body, as AsyncHTTPClient does. `reads` tells each read's
/// path as it comes.
private final class GatedOrigin: Origin, Sendable {
    static let chunkSize = 16 * 1024
    let content: Data
    let reads: AsyncStream<String>
    private let readsContinuation: AsyncStream<String>.Continuation
    /// The permits of the reads from each offset; finished once every chunk is released.
    private let permits = LockedBox<(streams: [Int64: Permits], all: Bool)>(([:], false))
    private typealias Permits = (stream: AsyncStream<Void>, continuation: AsyncStream<Void>.Continuation)

    init(content: Data) {
        self.content = content
        (reads, readsContinuation) = AsyncStream.makeStream()
    }

    /// Lets the body of the read from `offset` deliver `count` more chunks.
    func release(chunks count: Int, from offset: Int64) {
        let continuation = permits(from: offset).continuation
        for _ in 0..<count { continuation.yield() }
    }

    /// Lets every body deliver all its chunks.
    func releaseAll() {
        let streams = permits.withLock { permits in
            permits.all = true
            return Array(permits.streams.values)
        }
        for permits in streams { permits.continuation.finish() }
    }

    private func permits(from offset: Int64) -> Permits {
        permits.withLock { permits in
            if let existing = permits.streams[offset] { return existing }
            let made = AsyncStream<Void>.makeStream()
            if permits.all { made.continuation.finish() }
            permits.streams[offset] = made
            return made
        }
    }

    func contentInfo(for url: URL) async throws -> ContentInfo {
        if url.path == "/unknown" {
            try await Task.sleep(for: .seconds(3600))
        }
        return ContentInfo(length: Int64(content.count), mimeType: "audio/mpeg", entityTag: "\"1\"")
    }

    func read(_ request: OriginReadRequest) async throws -> OriginReadResponse {
        readsContinuation.yield(request.url.path)
        if request.url.path == "/silent" {
            try await Task.sleep(for: .seconds(3600))
        }
        let (content, permits, range) = (content, permits(from: request.range.lowerBound).stream, request.range)
        let body = AsyncThrowingStream<Data, any Error> { continuation in
            let task = Task {
                var offset = range.lowerBound
                func send() -> Bool {
                    guard offset < range.upperBound else { return false }
                    let end = min(range.upperBound, offset + Int64(Self.chunkSize))
                    continuation.yield(content.subdata(in: Int(offset)..<Int(end)))
                    offset = end
                    return true
                }
                for await _ in permits where !send() { break }
                // The permits end once every chunk is released.
                while !Task.isCancelled, send() {}
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return OriginReadResponse(
            offset: range.lowerBound, info: try await contentInfo(for: request.url), body: body,
            pausesWhileUnread: true)
    }
}
