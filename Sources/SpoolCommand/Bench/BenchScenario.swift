import ArgumentParser

/// The scenarios of `spool bench run`, by the names `--only` takes.
enum BenchScenario: String, CaseIterable, Sendable, ExpressibleByArgument {
    /// 2 and 3b/3c: first reads through empty caches.
    case cold
    /// 3d/3e: cold first byte and time to 1 MiB with every core kept busy.
    case loaded
    /// 1 and 3a: reads of a cached file.
    case warm
    /// 4: `SpoolCache.read` against a pread loop.
    case engine
    /// 5: origin bytes of a player session with seeks, and of its replay.
    case traffic
    /// 6: peak resident memory of `spool serve`.
    case memory
    /// 7: wrk with random ranges.
    case concurrency
    /// 8: ffmpeg remuxing an MP4 through the proxy.
    case video
    /// 10: Chromium's cold start of a small MP4 through the proxy (skipped without Chromium).
    case browser
}
