import Foundation
import Spool

/// Collects a whole stream: a cache's read or an origin response's body.
func collect(_ body: AsyncThrowingStream<Data, any Error>) async throws -> Data {
    var data = Data()
    for try await chunk in body { data.append(chunk) }
    return data
}

/// Reads a stream, returning what arrived before it ended or failed, and the failure.
func collectUntilFailure(_ stream: ByteStream) async -> (Data, (any Error)?) {
    var data = Data()
    do {
        for try await chunk in stream { data.append(chunk) }
        return (data, nil)
    } catch {
        return (data, error)
    }
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "spool-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Every regular file under `directory`, for scans of what the cache wrote.
func filesUnder(_ directory: URL) -> [URL] {
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
    return (enumerator?.allObjects as? [URL] ?? []).filter {
        (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
}

/// Waits (up to `timeout` seconds) until `condition` holds; whether it did.
func eventually(timeout: TimeInterval = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return true
}
