import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// glibc's allocator settings for `spool`'s own process, measured with `spool serve` streaming large files.
///
/// By default glibc gives every thread that allocates its own arena (up to eight per core) and hands large
/// buffers back to the kernel as soon as they are freed. A proxy allocates chunk buffers on one thread and
/// frees them on another, across NIO's event loops and the cooperative pool: each arena then keeps its own
/// freed memory (resident memory grew with every thread that touched a chunk), and each new 256 KiB buffer
/// came from fresh pages (page faults were a quarter of the warm read's time). Two arenas and buffers kept
/// in the heap up to 4 MiB, with 16 MiB of free memory left unreturned, fix both. A library never does this:
/// the process belongs to the app; the `spool` command's process is ours.
enum MemoryTuning {
    /// Applies the settings unless the environment sets glibc's own variables (`MALLOC_ARENA_MAX`, ...).
    static func apply() {
        #if canImport(Glibc)
        let environment = ProcessInfo.processInfo.environment
        guard !environment.keys.contains(where: { $0.hasPrefix("MALLOC_") }) else { return }
        // The parameter numbers of <malloc.h>, which the Glibc module does not import.
        let trimThreshold: Int32 = -1
        let mmapThreshold: Int32 = -3
        let arenaMax: Int32 = -8
        _ = glibcMallopt(arenaMax, 2)
        _ = glibcMallopt(mmapThreshold, 4 << 20)
        _ = glibcMallopt(trimThreshold, 16 << 20)
        #endif
    }
}

#if canImport(Glibc)
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif
