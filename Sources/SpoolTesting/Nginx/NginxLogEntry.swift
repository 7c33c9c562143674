import Foundation

/// One line of the access log an `NginxOrigin` writes.
public struct NginxLogEntry: Sendable, Equatable {
    /// The request method, e.g. "GET".
    public var method: String
    /// The request target as sent (nginx escapes unusual bytes as `\xHH`).
    public var path: String
    /// The response status.
    public var status: Int
    /// `$body_bytes_sent`: response body bytes nginx wrote for this request.
    public var bodyBytesSent: Int64
    /// The request's `Range` header, or nil if it had none.
    public var range: String?
    /// The request's `User-Agent` header, or nil if it had none: who asked, a player or the cache.
    public var userAgent: String?
    /// The protocol the request came in: `HTTP/1.1`, `HTTP/2.0`.
    public var httpProtocol: String = ""
    /// `$connection`: the serial number of the client connection the request came on, which tells how many
    /// connections a client opened for its requests; nil in a line without it.
    public var connection: Int?
    /// The request's Common Media Client Data header fields (`CMCD-Request`, `CMCD-Object`, `CMCD-Status`,
    /// `CMCD-Session`), by name; empty when it had none.
    public var clientDataFields: [String: String] = [:]

    /// Creates an entry; normally produced by `NginxOrigin.accessLog()`.
    public init(
        method: String, path: String, status: Int, bodyBytesSent: Int64, range: String?, userAgent: String? = nil
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.bodyBytesSent = bodyBytesSent
        self.range = range
        self.userAgent = userAgent
    }

    /// The `log_format` these entries are parsed from; tabs separate fields because nginx
    /// escapes tabs inside values, so they cannot appear unescaped in a field.
    static let logFormat =
        "'$status\\t$body_bytes_sent\\t$request\\t$http_range\\t$http_user_agent\\t$connection"
        + "\\t$http_cmcd_request\\t$http_cmcd_object\\t$http_cmcd_status\\t$http_cmcd_session'"

    /// Parses one line in `logFormat`; nil for anything else.
    init?(line: Substring) {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard (4...10).contains(fields.count), let status = Int(fields[0]), let bytes = Int64(fields[1]) else {
            return nil
        }
        let request = fields[2].split(separator: " ")
        self.status = status
        self.bodyBytesSent = bytes
        self.method = request.first.map(String.init) ?? ""
        self.path = request.count > 1 ? String(request[1]) : ""
        self.httpProtocol = request.count > 2 ? String(request[2]) : ""
        // nginx logs an absent variable as "-".
        self.range = fields[3] == "-" ? nil : String(fields[3])
        self.userAgent = fields.count < 5 || fields[4] == "-" ? nil : String(fields[4])
        self.connection = fields.count < 6 ? nil : Int(fields[5])
        for (index, name) in ["CMCD-Request", "CMCD-Object", "CMCD-Status", "CMCD-Session"].enumerated()
        where fields.count > 6 + index && fields[6 + index] != "-" {
            // nginx writes a quote as `\x22`.
            clientDataFields[name] = fields[6 + index].replacingOccurrences(of: "\\x22", with: "\"")
        }
    }
}
