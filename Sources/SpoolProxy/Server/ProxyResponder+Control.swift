import Foundation
import NIOCore
import NIOHTTP1
import Spool

/// The proxy's own paths, which name no origin: the ping, the statistics, the playback reports, the preload and
/// download APIs.
extension ProxyResponder {
    /// Answers `head` if it is for one of the proxy's own paths; returns whether it was.
    func answerControl(
        _ head: HTTPRequestHead, body: [UInt8], keepAlive: Bool, writer: Writer, record: inout ProxyLogRecord
    ) async throws -> Bool {
        let path = head.uri
        let isOwn =
            path == SpoolProxy.pingPath || path == SpoolProxy.statisticsPath || path == SpoolProxy.playbackPath
            || PreloadControl.handles(path) || DownloadControl.handles(path)
        guard isOwn else { return false }
        record.target = String(Self.path(of: path))
        let isHead = head.method == .HEAD
        let json: [UInt8]
        if PreloadControl.handles(path) {
            json = try preload.answer(method: head.method, uri: path, body: body)
        } else if DownloadControl.handles(path) {
            json = try await downloads.answer(method: head.method, uri: path, body: body)
        } else {
            guard head.method == .GET || isHead else {
                throw FailureResponse(
                    status: 405, reason: "only GET and HEAD", headers: [HeaderField("Allow", "GET, HEAD")])
            }
            guard path == SpoolProxy.statisticsPath || path == SpoolProxy.playbackPath else {
                record.status = 200
                record.bodyBytes = try await sendWhole(
                    ByteBuffer(string: "pong\n"), status: 200, type: "text/plain; charset=utf-8",
                    extraFields: pingProof(head), head: head, isHead: isHead, keepAlive: keepAlive, writer: writer)
                return true
            }
            json = path == SpoolProxy.playbackPath ? try await playbackJSON() : try await statisticsJSON()
        }
        record.status = 200
        record.bodyBytes = try await sendWhole(
            ByteBuffer(bytes: json), status: 200, type: "application/json", head: head, isHead: isHead,
            keepAlive: keepAlive, writer: writer)
        return true
    }

    /// The proof that this proxy answers, for a ping that carries a challenge (`ListenerProbe`): what another
    /// program on the port cannot make.
    private func pingProof(_ head: HTTPRequestHead) -> [HeaderField] {
        let challenges = head.headers[ProxySecrets.challengeField]
        guard challenges.count == 1, let challenge = challenges.first,
            (1...ProxySecrets.longestChallenge).contains(challenge.utf8.count)
        else { return [] }
        return [HeaderField(ProxySecrets.proofField, secrets.pingProof(for: challenge))]
    }

    /// The path of a request target, without its query or fragment.
    static func path(of uri: String) -> Substring {
        uri.prefix { $0 != "?" && $0 != "#" }
    }

    /// The cache's `CacheStatistics` as JSON (`SpoolProxy.statisticsPath`).
    private func statisticsJSON() async throws -> [UInt8] {
        // Read on BlockingIO by the cache.
        let statistics = await cache.statistics
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(statistics)) + [UInt8(ascii: "\n")]
    }

    /// The cache's playback reports and their summary as JSON (`SpoolProxy.playbackPath`).
    private func playbackJSON() async throws -> [UInt8] {
        struct Answer: Encodable {
            let summary: PlaybackSummary
            let reports: [PlaybackReport]
        }
        let reports = await cache.playback.recent()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(Answer(summary: PlaybackSummary(reports), reports: reports)))
            + [UInt8(ascii: "\n")]
    }

    /// `sendWhole` of a body of type `type`, with `extraFields` (`Allow` for 405), never to be cached by the
    /// client: the proxy's own answers and its refusals.
    func sendWhole(
        _ body: ByteBuffer, status: Int, type: String, extraFields: [HeaderField] = [], head: HTTPRequestHead,
        isHead: Bool, keepAlive: Bool, writer: Writer
    ) async throws -> Int64 {
        let fields =
            extraFields + [
                HeaderField("Content-Type", type),
                HeaderField("Content-Length", "\(body.readableBytes)"),
                HeaderField("Cache-Control", "no-store"),
            ]
        return try await sendWhole(
            body, status: status, fields: fields, head: head, isHead: isHead, keepAlive: keepAlive, writer: writer)
    }
}
