import Foundation

/// Everything a `SpoolCache` is set up with.
public struct SpoolConfiguration: Sendable {
    /// The cache directory; created if missing.
    public var directory: URL
    /// The origin for resources that do not name their own.
    public var origin: any Origin
    /// How URLs become cache keys.
    public var cacheKeyPolicy: CacheKeyPolicy
    /// How origin requests are sized, paced and retried: every knob, for the package's own tools and tests.
    package var fetchPolicy: FetchPolicy
    /// The knobs of the origin requests an app may set; the rest the engine measures.
    public var fetchTuning: FetchTuning {
        get { FetchTuning(fetchPolicy) }
        set { newValue.apply(to: &fetchPolicy) }
    }
    /// How large and old the cache may grow.
    public var limits: CacheLimits
    /// A 32-byte key to encrypt cached bytes with (AES in counter mode per 64 KiB block, each block checked by
    /// HMAC-SHA-256, random access kept); `nil` stores them as they are. Entries stored with another key are
    /// dropped and fetched again.
    public var encryptionKey: Data?
    /// The one clock of the cache's engines, its proxy and its preloaders; tests pass one they drive.
    package var clock: any SpoolClock
    /// How many transfers no player waits for run at once (`TransferScheduler`).
    package var transferLimits = TransferLimits()
    /// The most bytes all of the cache's preloaders together keep preloaded for items their players have not
    /// reached (each preloader's own is `PreloadConfiguration.byteBudget`): a preload starts only while they
    /// hold less. `nil`, the default: only each preloader's window and targets bound them.
    public var preloadByteBudget: Int64?
    /// Told about problems the cache handled on its own (full disk, damaged bytes, a wrong key).
    public var onProblem: (@Sendable (SpoolProblem) -> Void)?
    /// What Common Media Client Data (CMCD) the origin requests carry: by default the players' passes on and
    /// Spool's own requests ahead of playback say so, in header fields (`ClientDataPolicy`).
    public var clientData = ClientDataPolicy()

    /// A configuration; by default HTTP(S) through URLSession, credential query items left out of keys, no
    /// limits, no encryption.
    public init(
        directory: URL = SpoolConfiguration.defaultDirectory,
        origin: any Origin = HTTPOrigin(),
        cacheKeyPolicy: CacheKeyPolicy = .default,
        fetchTuning: FetchTuning = FetchTuning(),
        limits: CacheLimits = .unlimited,
        encryptionKey: Data? = nil,
        onProblem: (@Sendable (SpoolProblem) -> Void)? = nil
    ) {
        var fetchPolicy = FetchPolicy()
        fetchTuning.apply(to: &fetchPolicy)
        self.init(
            directory: directory, origin: origin, cacheKeyPolicy: cacheKeyPolicy, fetchPolicy: fetchPolicy,
            limits: limits, encryptionKey: encryptionKey, onProblem: onProblem)
    }

    /// A configuration with every knob of the origin requests set (`fetchPolicy`).
    package init(
        directory: URL = SpoolConfiguration.defaultDirectory,
        origin: any Origin = HTTPOrigin(),
        cacheKeyPolicy: CacheKeyPolicy = .default,
        fetchPolicy: FetchPolicy,
        limits: CacheLimits = .unlimited,
        encryptionKey: Data? = nil,
        clock: any SpoolClock = SystemClock(),
        onProblem: (@Sendable (SpoolProblem) -> Void)? = nil
    ) {
        self.directory = directory
        self.origin = origin
        self.cacheKeyPolicy = cacheKeyPolicy
        self.fetchPolicy = fetchPolicy
        self.limits = limits
        self.encryptionKey = encryptionKey
        self.clock = clock
        self.onProblem = onProblem
    }

    /// The platform's cache directory for Spool: `$XDG_CACHE_HOME/spool` or `~/.cache/spool` on Linux,
    /// `Library/Caches/Spool` on Apple platforms.
    public static var defaultDirectory: URL {
        #if os(Linux)
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("spool", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache", isDirectory: true)
            .appendingPathComponent("spool", isDirectory: true)
        #else
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("Spool", isDirectory: true)
        #endif
    }
}
