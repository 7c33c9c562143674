import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A new file only its user can read (mode 0600 from the moment it exists, never widened after): for what holds
/// a secret, `serve.json` and a URL key file.
enum PrivateFile {
    /// Why a private file was not made.
    enum Failure: Error, CustomStringConvertible {
        /// Something is at the path already.
        case exists
        /// The system's words.
        case other(String)

        var description: String {
            switch self {
            case .exists: "something is there already"
            case .other(let reason): reason
            }
        }
    }

    /// Creates the file at `path` with `data`; never replaces one. On failure nothing is left at `path`.
    static func create(at path: String, with data: Data) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw errno == EEXIST ? .exists : .other(String(cString: strerror(errno)))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
        } catch {
            unlink(path)
            throw .other("\(error)")
        }
    }
}
