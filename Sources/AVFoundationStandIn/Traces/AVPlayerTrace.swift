#if os(Linux)
import Foundation

/// One recorded AVPlayer request sequence (see `RecordedTraces` for the ones that ship with the package).
public struct AVPlayerTrace: Decodable, Sendable, Equatable {
    /// The length replayed when the source does not state the file size (the traces README says 8 MiB).
    public static let defaultResourceLength: Int64 = 8 * 1024 * 1024

    /// One request of the trace, in the file's snake_case form.
    public struct Request: Decodable, Sendable, Equatable {
        /// The request carries a content-information request.
        public var info: Bool
        /// The request carries a data request.
        public var data: Bool
        /// `requestedOffset`.
        public var offset: Int64
        /// `requestedLength`; `nil` means to the end of the resource.
        public var length: Int64?
        /// Bytes received before the player cancelled; `nil`: not cancelled.
        public var cancelAfter: Int64?
        /// Indices of earlier requests still open when this one starts.
        public var openWith: [Int]

        enum CodingKeys: String, CodingKey {
            case info, data, offset, length
            case cancelAfter = "cancel_after"
            case openWith = "open_with"
        }
    }

    /// A short unique name.
    public var id: String
    /// Where the trace was published.
    public var source: String
    /// Player platform and OS, as stated.
    public var platform: String
    /// Container format, as stated.
    public var container: String
    /// The file's size; `nil` when the source does not state it.
    public var fileSize: Int64?
    /// The requests, in order.
    public var requests: [Request]
    /// What the source says and what was inferred.
    public var notes: String

    enum CodingKeys: String, CodingKey {
        case id, source, platform, container, requests, notes
        case fileSize = "file_size"
    }

    /// The length to replay against: the file size, or 8 MiB when unknown.
    public var resourceLength: Int64 {
        fileSize ?? Self.defaultResourceLength
    }

    /// The trace as a script for `PlayerSimulator` (to-end requests without a cancel are read for 4 MiB).
    public var script: PlayerScript {
        PlayerScript(
            requests: requests.map {
                ScriptedRequest(
                    info: $0.info, data: $0.data, offset: $0.offset, length: $0.length,
                    cancelAfter: $0.cancelAfter, openWith: $0.openWith)
            })
    }

    /// Reads a JSON-lines file of traces; blank lines are skipped, a bad line throws
    /// `AVPlayerTraceError.invalidLine` naming its line number.
    public static func load(contentsOf url: URL) throws -> [AVPlayerTrace] {
        try parse(String(decoding: try Data(contentsOf: url), as: UTF8.self), source: url.path)
    }

    /// The traces recorded from real AVPlayer builds that ship with the package (`RecordedTraces.swift`).
    public static func recorded() throws -> [AVPlayerTrace] {
        try parse(RecordedTraces.jsonLines, source: "recorded traces")
    }

    /// Parses JSON lines of traces; `source` names them in errors.
    static func parse(_ text: String, source: String) throws -> [AVPlayerTrace] {
        let decoder = JSONDecoder()
        var traces: [AVPlayerTrace] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do {
                traces.append(try decoder.decode(AVPlayerTrace.self, from: Data(line.utf8)))
            } catch {
                throw AVPlayerTraceError.invalidLine(file: source, line: number + 1, reason: String(describing: error))
            }
        }
        return traces
    }
}
#endif
