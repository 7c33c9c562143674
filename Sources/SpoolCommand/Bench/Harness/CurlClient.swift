import Foundation
import SpoolTesting

/// Single transfers with curl, the reference HTTP client: the body goes to /dev/null, and curl's own timers
/// give the time to the first byte (`%{time_starttransfer}`) and the total.
struct CurlClient: Sendable {
    /// What one transfer did.
    struct Transfer: Sendable {
        var status: Int
        var bytes: Int64
        var firstByte: Double
        var total: Double

        /// Bytes per second over the whole transfer, connection set-up included.
        var bytesPerSecond: Double { total > 0 ? Double(bytes) / total : 0 }
    }

    let command: ExternalCommand

    /// GETs `url` (with `Range: bytes=range` when given), expecting `expectedBytes` of body.
    func get(_ url: URL, range: String? = nil, expectedBytes: Int64, timeout: TimeInterval = 600) throws -> Transfer {
        var arguments = [
            "-s", "-S", "--http1.1", "-o", "/dev/null", "-w",
            "%{http_code} %{size_download} %{time_starttransfer} %{time_total}",
        ]
        if let range { arguments += ["-r", range] }
        let output = try command.run(arguments + [url.absoluteString], timeout: timeout)
        let fields = output.stdoutText.split(separator: " ")
        guard output.status == 0, fields.count == 4, let status = Int(fields[0]), let bytes = Int64(fields[1]),
            let firstByte = Double(fields[2]), let total = Double(fields[3])
        else {
            throw CommandFailure(
                message: "curl \(url.absoluteString) failed (\(output.status)): \(output.stderr)\(output.stdoutText)")
        }
        guard (200...299).contains(status), bytes == expectedBytes else {
            throw CommandFailure(
                message: "curl \(url.absoluteString): status \(status), \(bytes) bytes; expected \(expectedBytes)")
        }
        return Transfer(status: status, bytes: bytes, firstByte: firstByte, total: total)
    }
}
