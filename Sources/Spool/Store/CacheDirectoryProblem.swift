import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a directory cannot be a cache, in a user's words: a file where a directory should be, a parent that is a
/// file, no permission, a read-only file system; what the system said otherwise.
enum CacheDirectoryProblem {
    /// What is wrong with `directory` for a cache that failed to create its folders with `error`, or a
    /// directory it cannot write in; with what to do.
    static func describe(_ directory: URL, error: (any Error)?) -> String {
        let path = directory.path
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                return "cannot use \(path) as the cache directory: it is a file (choose a directory)"
            }
            return "cannot use \(path) as the cache directory: \(reason(path) ?? fallback(error)) (choose another one)"
        }
        // The nearest part of the path that exists says why nothing can be made below it.
        var ancestor = directory.deletingLastPathComponent()
        while ancestor.path != "/", !manager.fileExists(atPath: ancestor.path, isDirectory: &isDirectory) {
            ancestor = ancestor.deletingLastPathComponent()
        }
        _ = manager.fileExists(atPath: ancestor.path, isDirectory: &isDirectory)
        let why =
            isDirectory.boolValue
            ? reason(ancestor.path) ?? "\(ancestor.path) takes no new directories (\(fallback(error)))"
            : "\(ancestor.path) is a file, not a directory"
        return "cannot create the cache directory \(path): \(why) (choose another one)"
    }

    /// Why nothing can be written in the existing directory at `path`, if anything forbids it.
    private static func reason(_ path: String) -> String? {
        guard access(path, W_OK) != 0 else { return nil }
        switch errno {
        case EACCES, EPERM: return "no permission to write in \(path)"
        case EROFS: return "\(path) is on a read-only file system"
        default: return "\(path): \(String(cString: strerror(errno)))"
        }
    }

    private static func fallback(_ error: (any Error)?) -> String {
        error.map { "\(($0 as NSError).localizedDescription)" } ?? "it cannot be written"
    }
}
