import Foundation
import SpoolProxy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The key of `spool serve --url-key-file`: read as `KeyFile` reads an encryption key (32 raw bytes or 64
/// hexadecimal characters), or made when the file does not exist yet: 32 random bytes, readable by its user
/// only, created in one step so nobody else can read it in between.
enum URLKeyFile {
    static func loadOrCreate(path: String) throws -> ProxyURLKey {
        let key = ProxyURLKey()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor >= 0 {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            do {
                try handle.write(contentsOf: key.data)
                try handle.close()
            } catch {
                unlink(path)
                throw CommandFailure(message: "cannot write the URL key file \(path): \(error)")
            }
            return key
        }
        guard errno == EEXIST else {
            throw CommandFailure(message: "cannot make the URL key file \(path): \(String(cString: strerror(errno)))")
        }
        do {
            return try ProxyURLKey(data: try KeyFile.load(path: path))
        } catch let invalid as ArgumentText.Invalid {
            throw CommandFailure(message: "--url-key-file: \(invalid.description)")
        }
    }
}
