import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Common Media Client Data (CMCD, CTA-5004; version 2's keys pass as well): what a player tells a CDN about
/// each request (bitrate, buffer, session, object type, whether it is starting), as `key=value` pairs in a
/// `CMCD` query item or in four `CMCD-*` header fields.
///
/// Spool passes a player's CMCD on to the origin requests that serve the player's reads, without the keys
/// that describe the player's next request rather than this one (`nor`, `nrr`: the cache fetches ahead
/// itself) and with the cache's own measured throughput of the origin as `mtp` (the player measured its link
/// to the cache), and labels its own requests ahead of playback (see `ClientDataPolicy`). Other values are
/// kept as the player wrote them (strings with their quotes; a true flag as the bare key).
public struct CommonMediaClientData: Sendable, Hashable {
    /// How the data goes with a request.
    public enum Transmission: Sendable, Hashable {
        /// In the `CMCD-Request`, `CMCD-Object`, `CMCD-Status` and `CMCD-Session` header fields: the URL,
        /// and with it a signed URL's signature and the CDN's cache key, stays as it is.
        case headers
        /// In a `CMCD` query item added to the URL.
        case query
    }

    /// The keys and their values as written (`"br": "3200"`, `"sid": "\"6e2f\""`), a true flag's value
    /// empty.
    public private(set) var entries: [String: String]
    /// How the data goes with a request.
    public var transmission: Transmission

    /// Data with `entries`, sent as `transmission` says.
    public init(entries: [String: String] = [:], transmission: Transmission = .headers) {
        self.entries = entries.filter { Self.isKey($0.key) }
        self.transmission = transmission
    }

    /// The data of a `CMCD` query item's value or of the `CMCD-*` fields joined with commas: `key=value`
    /// pairs separated by commas (a quoted string may hold commas); `nil` when there is no valid pair.
    public init?(parsing text: String, transmission: Transmission = .headers) {
        var entries: [String: String] = [:]
        var current = ""
        var quoted = false
        for character in text + "," {
            switch character {
            case "\"":
                quoted.toggle()
                current.append(character)
            case "," where !quoted:
                let pair = current.trimmingCharacters(in: .whitespaces)
                current = ""
                guard !pair.isEmpty else { continue }
                let key = String(pair.prefix { $0 != "=" })
                // Printable ASCII only: a value decoded from a query item must never carry a line break (or
                // anything else) into the origin request's header fields.
                guard Self.isKey(key), pair.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
                    continue
                }
                entries[key] = pair.count > key.count ? String(pair.dropFirst(key.count + 1)) : ""
            default:
                current.append(character)
            }
        }
        guard !entries.isEmpty, !quoted else { return nil }
        self.init(entries: entries, transmission: transmission)
    }

    /// The data a request carries in its `CMCD-*` header fields (`fields` by name, any case); `nil` without
    /// any.
    public init?(headerFields fields: [String: String]) {
        let values = fields.filter { Self.headerNames.contains($0.key.lowercased()) }.map(\.value)
        guard !values.isEmpty else { return nil }
        self.init(parsing: values.joined(separator: ","))
    }

    /// The data without `keys`.
    public func removing(_ keys: Set<String>) -> CommonMediaClientData {
        var copy = self
        for key in keys { copy.entries[key] = nil }
        return copy
    }

    /// The data with `key` set to `value` as written (a string with its quotes; `""` for a true flag), or
    /// removed for `nil`.
    public func setting(_ key: String, to value: String?) -> CommonMediaClientData {
        guard Self.isKey(key) else { return self }
        var copy = self
        copy.entries[key] = value
        return copy
    }

    /// The pairs as CTA-5004 writes them: sorted by key, comma-separated.
    public var serialized: String {
        serialize(entries.keys.sorted())
    }

    /// The header fields that carry the data, by the class of each key (a custom key goes in
    /// `CMCD-Request`); none is empty.
    public var headerFields: [String: String] {
        var keys: [String: [String]] = [:]
        for key in entries.keys.sorted() {
            keys[Self.headerClass[key] ?? "CMCD-Request", default: []].append(key)
        }
        return keys.mapValues(serialize)
    }

    /// Adds the data to `request` as `transmission` says, replacing what it carried before.
    func apply(to request: inout URLRequest) {
        guard !entries.isEmpty else { return }
        switch transmission {
        case .headers:
            for name in ["CMCD-Request", "CMCD-Object", "CMCD-Status", "CMCD-Session"] {
                request.setValue(nil, forHTTPHeaderField: name)
            }
            for (name, value) in headerFields { request.setValue(value, forHTTPHeaderField: name) }
        case .query:
            guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else { return }
            var items = (components.percentEncodedQueryItems ?? []).filter { $0.name != "CMCD" }
            let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+,;\"#"))
            items.append(
                URLQueryItem(name: "CMCD", value: serialized.addingPercentEncoding(withAllowedCharacters: allowed)))
            components.percentEncodedQueryItems = items
            request.url = components.url ?? url
        }
    }

    private func serialize(_ keys: [String]) -> String {
        keys.map { key in entries[key].map { $0.isEmpty ? key : "\(key)=\($0)" } ?? key }.joined(separator: ",")
    }

    /// Whether `key` is a CMCD key: lower-case letters, digits, `.` and `-` (custom keys carry a hyphenated
    /// prefix, `com.example-key`).
    static func isKey(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy { keyCharacters.contains($0) }
    }

    private static let keyCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.-")

    /// The header field names, lower-cased.
    static let headerNames: Set<String> = ["cmcd-request", "cmcd-object", "cmcd-status", "cmcd-session"]

    /// The field of each key CTA-5004 (and its version 2) names.
    private static let headerClass: [String: String] = {
        var classes: [String: String] = [:]
        for key in ["bl", "dl", "mtp", "nor", "nrr", "su", "ltc", "tbl", "bsd"] { classes[key] = "CMCD-Request" }
        for key in ["br", "d", "ot", "tb", "ab", "tab", "lab", "lb"] { classes[key] = "CMCD-Object" }
        for key in ["bs", "rtp"] { classes[key] = "CMCD-Status" }
        for key in ["cid", "pr", "sf", "sid", "st", "v", "msd", "sta"] { classes[key] = "CMCD-Session" }
        return classes
    }()
}
