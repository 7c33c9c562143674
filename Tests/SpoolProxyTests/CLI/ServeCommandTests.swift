import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// `spool serve` and `spool proxy-url` as a user runs them: separate processes, signals, real files.
final class ServeCommandTests: XCTestCase {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spool-serve-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private func spool(_ arguments: [String]) throws -> ExternalCommand.Output {
        try ExternalCommand(executable: try SpoolExecutable.url()).run(arguments)
    }

    private func startServe(_ arguments: [String]) throws -> (process: BackgroundProcess, base: URL) {
        let process = try BackgroundProcess(executable: try SpoolExecutable.url(), arguments: ["serve"] + arguments)
        addTeardownBlock { process.stop() }
        let line = try process.firstLine()
        return (process, try XCTUnwrap(URL(string: line), line))
    }

    func testServeAnswersThenStopsCleanlyWithTheIndexWrittenOnSIGTERMAndSIGINT() async throws {
        let www = try temporaryDirectory()
        let length: Int64 = 1_500_000
        try TestContent.generatedBytes(seed: 5, range: 0..<length).write(to: www.appendingPathComponent("a.mp3"))
        let nginx = try NginxOrigin(serving: www)
        defer { nginx.stop() }
        for signal in [SIGTERM, SIGINT] {
            let cacheDirectory = try temporaryDirectory()
            let (serve, base) = try startServe(["--port", "0", "--cache", cacheDirectory.path])
            XCTAssertEqual(base.host, "127.0.0.1", "loopback unless told otherwise")
            let port = try XCTUnwrap(base.port)
            XCTAssertGreaterThan(port, 0)

            let mapped = try spool([
                "proxy-url", nginx.url(for: "a.mp3").absoluteString, "--cache", cacheDirectory.path,
            ])
            XCTAssertEqual(mapped.status, 0, mapped.stderr)
            let proxyURL = try XCTUnwrap(URL(string: mapped.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
            XCTAssertEqual(proxyURL.lastPathComponent, "a.mp3")
            let response = try await Curl.fetch(proxyURL)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 5, range: 0..<length))

            serve.send(signal)
            XCTAssertEqual(serve.waitForExit(timeout: 20), 0, "signal \(signal): \(serve.stderr)")
            let cache = try SpoolCache(configuration: SpoolConfiguration(directory: cacheDirectory))
            let foundEntry = await cache.entry(for: nginx.url(for: "a.mp3"))
            let entry = try XCTUnwrap(foundEntry, "index written before exit")
            XCTAssertEqual(entry.cachedRanges.byteCount, length)
            XCTAssertEqual(entry.info.mimeType, "audio/mpeg")
        }
    }

    func testServeListensAgainWhenTheKernelDestroysItsListeningSocket() async throws {
        let www = try temporaryDirectory()
        try TestContent.generatedBytes(seed: 6, range: 0..<200_000).write(to: www.appendingPathComponent("b.mp3"))
        let nginx = try NginxOrigin(serving: www)
        defer { nginx.stop() }
        let cacheDirectory = try temporaryDirectory()
        let (serve, base) = try startServe(["--port", "0", "--cache", cacheDirectory.path])
        let port = try XCTUnwrap(base.port)
        let url = try XCTUnwrap(
            URL(
                string: try spool(["proxy-url", nginx.url(for: "b.mp3").absoluteString, "--cache", cacheDirectory.path])
                    .stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))

        // What iOS does to a suspended app's listener, done by the kernel here: SOCK_DESTROY through `ss -K`.
        guard let ss = ExternalCommand(named: "ss") else { throw rootNetworkUnavailable("ss is not installed") }
        let killed = try ss.run(["-K", "-ltn", "sport = :\(port)"], timeout: 10)
        XCTAssertEqual(killed.status, 0, killed.stderr)
        let told = "spool: listening again at http://127.0.0.1:\(port)"
        for _ in 0..<500 where !serve.stderr.contains(told) { try await Task.sleep(for: .milliseconds(10)) }
        guard serve.stderr.contains("spool: stopped listening at http://127.0.0.1:\(port)") else {
            throw rootNetworkUnavailable("ss -K did not destroy the socket (root and CONFIG_INET_DIAG_DESTROY)")
        }
        XCTAssertTrue(serve.stderr.contains(told), "listening again within 5 s: \(serve.stderr)")
        let response = try await Curl.fetch(url)
        XCTAssertEqual(response.status, 200, "the URL handed out before works")
        XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 6, range: 0..<200_000))
    }

    /// A skip with `reason`, or a failure where `SPOOL_REQUIRE_ROOT_NETWORK=1` (CI) says such tests must run.
    private func rootNetworkUnavailable(_ reason: String) -> any Error {
        if ProcessInfo.processInfo.environment["SPOOL_REQUIRE_ROOT_NETWORK"] == "1" {
            return ExternalCommand.Failure(description: reason)
        }
        return XCTSkip(reason)
    }

    func testProxyURLCommandPrintsAReversibleURLAndRefusesOtherSchemes() throws {
        let origin = "https://cdn.example.com/a%20b/%D0%BF%D0%B5%D1%81%D0%BD%D1%8F.mp3?token=x&q=1"
        let keyFile = try temporaryDirectory().appendingPathComponent("url.key")
        let key = ProxyURLKey()
        try key.data.write(to: keyFile)
        let output = try spool(["proxy-url", origin, "--url-key-file", keyFile.path, "--port", "8123"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let printed = try XCTUnwrap(URL(string: output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(printed.host, "127.0.0.1")
        XCTAssertEqual(printed.port, 8123)
        XCTAssertTrue(printed.path.hasSuffix("/песня.mp3"), printed.path)
        XCTAssertEqual(
            printed, try ProxyURLMapping(host: "127.0.0.1", port: 8123, key: key).proxyURL(for: URL(string: origin)!))

        let hosted = try spool(["proxy-url", origin, "--url-key-file", keyFile.path, "--host", "::1", "--port", "8123"])
        XCTAssertTrue(hosted.stdoutText.hasPrefix("http://[::1]:8123/o/"), hosted.stdoutText)

        let file = try spool(["proxy-url", "file:///etc/passwd", "--url-key-file", keyFile.path, "--port", "8123"])
        XCTAssertEqual(file.status, 1)
        XCTAssertTrue(file.stderr.contains("only http and https"), file.stderr)
        XCTAssertEqual(try spool(["proxy-url", origin, "--port", "8123"]).status, 2, "--port needs --url-key-file")
        let noServe = try spool(["proxy-url", origin, "--cache", try temporaryDirectory().path])
        XCTAssertEqual(noServe.status, 1)
        XCTAssertTrue(noServe.stderr.contains("no `spool serve` runs on the cache"), noServe.stderr)
    }

    /// serve's secrets are its user's only (serve.json and a made key file, mode 0600), its API needs the token,
    /// and a URL made with a kept key plays after a restart, on the new port, where one of a new key does not.
    func testServeKeepsItsSecretsToItsUserAndAKeptKeyOutlivesARestart() async throws {
        let www = try temporaryDirectory()
        try TestContent.generatedBytes(seed: 8, range: 0..<100_000).write(to: www.appendingPathComponent("c.mp3"))
        let nginx = try NginxOrigin(serving: www)
        defer { nginx.stop() }
        let cacheDirectory = try temporaryDirectory()
        let keyFile = try temporaryDirectory().appendingPathComponent("url.key")
        let (first, base) = try startServe(["--cache", cacheDirectory.path, "--url-key-file", keyFile.path])
        for file in [keyFile, cacheDirectory.appendingPathComponent("serve.json")] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, file.lastPathComponent)
        }
        XCTAssertEqual(try Data(contentsOf: keyFile).count, 32)
        let served = try ServedProxy(cacheDirectory: cacheDirectory)
        let statistics = try XCTUnwrap(URL(string: base.absoluteString + SpoolProxy.statisticsPath))
        let refused = try await Curl.fetch(statistics)
        XCTAssertEqual(refused.status, 401)
        let answered = try await Curl.fetch(statistics, served.authorization)
        XCTAssertEqual(answered.status, 200)

        let printed = try spool(["proxy-url", nginx.url(for: "c.mp3").absoluteString, "--cache", cacheDirectory.path])
        let url = try XCTUnwrap(URL(string: printed.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let played = try await Curl.fetch(url)
        XCTAssertEqual(played.body, TestContent.generatedBytes(seed: 8, range: 0..<100_000))
        let path = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        first.send(SIGTERM)
        XCTAssertEqual(first.waitForExit(timeout: 20), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cacheDirectory.appendingPathComponent("serve.json").path))

        for (arguments, status) in [(["--url-key-file", keyFile.path], 200), ([], 403)] {
            let (again, newBase) = try startServe(["--cache", cacheDirectory.path] + arguments)
            let old = try XCTUnwrap(URL(string: newBase.absoluteString + path))
            let answer = try await Curl.fetch(old)
            XCTAssertEqual(answer.status, status, "\(arguments)")
            again.send(SIGTERM)
            XCTAssertEqual(again.waitForExit(timeout: 20), 0)
        }
    }

    func testHeaderTokensReachTheOriginButNeverTheDiskOrTheLog() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve(.generated(length: 300_000, seed: 9), at: "/private.mp3", contentType: "audio/mpeg")
        let cacheDirectory = try temporaryDirectory()
        let headerSecret = "HEADER-SECRET-7f3a91"
        let querySecret = "QUERY-SECRET-52c0e8"
        let (serve, base) = try startServe([
            "--cache", cacheDirectory.path, "-H", "Authorization: Bearer \(headerSecret)", "--verbose",
        ])
        let originURL = URL(string: origin.url(for: "/private.mp3").absoluteString + "?token=\(querySecret)")!
        let proxyURL = try ServedProxy(cacheDirectory: cacheDirectory).url(for: originURL)
        XCTAssertEqual(proxyURL.port, base.port)
        let response = try await Curl.fetch(proxyURL, ["--range", "0-99999"])
        XCTAssertEqual(response.status, 206)
        XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 9, range: 0..<100_000))
        XCTAssertTrue(
            origin.requests.contains { $0.headers["authorization"] == "Bearer \(headerSecret)" },
            "the header goes to the origin")

        serve.send(SIGTERM)
        XCTAssertEqual(serve.waitForExit(timeout: 20), 0)
        let logs = serve.stdout + serve.stderr
        XCTAssertTrue(logs.contains("GET http://127.0.0.1:\(origin.port)/private.mp3"), logs)
        XCTAssertFalse(logs.contains(headerSecret), logs)
        XCTAssertFalse(logs.contains(querySecret), logs)
        var scanned = 0
        let files = FileManager.default.enumerator(at: cacheDirectory, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            XCTAssertFalse(file.path.contains(headerSecret) || file.path.contains(querySecret), file.path)
            // Nothing the serve wrote is readable by the machine's other users: bytes, records, what was played.
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            if attributes[.type] as? FileAttributeType == .typeRegular {
                let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
                XCTAssertEqual(mode & 0o077, 0, "\(file.lastPathComponent): mode \(String(mode, radix: 8))")
            }
            guard let data = try? Data(contentsOf: file) else { continue }
            scanned += 1
            XCTAssertNil(data.range(of: Data(headerSecret.utf8)), file.path)
            XCTAssertNil(data.range(of: Data(querySecret.utf8)), file.path)
        }
        XCTAssertGreaterThanOrEqual(scanned, 2, "the data file and the index record were scanned")
        // The stopped serve finished the item's playback report and wrote it in the directory (scanned above),
        // naming the item without its token.
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: cacheDirectory.appendingPathComponent("playback.json").path))
        let stats = try spool(["stats", "--playback", "--json", "--cache", cacheDirectory.path])
        XCTAssertEqual(stats.status, 0, stats.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdoutText.utf8)) as? [String: Any])
        let reports = try XCTUnwrap(json["reports"] as? [[String: Any]])
        XCTAssertEqual(reports.count, 1)
        XCTAssertEqual(reports.first?["item"] as? String, "http://127.0.0.1:\(origin.port)/private.mp3")
        XCTAssertEqual(reports.first?["bytesFromOrigin"] as? Int, 100_000)
        let table = try spool(["stats", "--playback", "--cache", cacheDirectory.path])
        XCTAssertTrue(table.stdoutText.contains("cold "), table.stdoutText)
    }

    func testAPortInUseFailsAtOnceWithAClearError() throws {
        let cacheDirectory = try temporaryDirectory()
        let (_, base) = try startServe(["--cache", cacheDirectory.path])
        let second = try spool(["serve", "--cache", cacheDirectory.path, "--port", "\(base.port!)"])
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains("cannot listen on 127.0.0.1:\(base.port!)"), second.stderr)
    }

    func testThePreloadAPIOfServeFollowsItsOptions() async throws {
        let www = try temporaryDirectory()
        for index in 0..<3 {
            _ = try MediaSamples.mp4(in: www, name: "v\(index).mp4", seconds: 6, faststart: true)
        }
        let nginx = try NginxOrigin(serving: www)
        defer { nginx.stop() }
        let cacheDirectory = try temporaryDirectory()
        let (_, base) = try startServe(["--cache", cacheDirectory.path, "--preload-ahead", "1"])
        let authorization = try ServedProxy(cacheDirectory: cacheDirectory).authorization
        let items = (0..<3).map { "{\"url\": \"\(nginx.url(for: "v\($0).mp4").absoluteString)\", \"id\": \"v\($0)\"}" }
        let feed = "{\"items\": [\(items.joined(separator: ", "))], \"current\": 0}"
        let preload = URL(string: base.absoluteString + SpoolProxy.preloadPath)!
        let put = try await Curl.fetch(preload, authorization + ["--request", "PUT", "--data-binary", feed])
        XCTAssertEqual(put.status, 200, String(decoding: put.body, as: UTF8.self))
        var states: [String] = []
        for _ in 0..<200 {
            let answer = try await Curl.fetch(preload, authorization)
            let status = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            states = (status?["items"] as? [[String: Any]] ?? []).map { $0["state"] as? String ?? "?" }
            if states.prefix(2) == ["loaded", "loaded"] { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertEqual(states, ["loaded", "loaded", "idle"], "one item ahead (--preload-ahead 1)")

        let refused = try spool(["serve", "--preload-seconds", "0"])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("--preload-seconds must be more than 0"), refused.stderr)
    }
}
