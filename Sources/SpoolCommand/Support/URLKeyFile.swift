import Foundation
import SpoolProxy

/// The key of `spool serve --url-key-file`: read as `KeyFile` reads an encryption key (32 raw bytes or 64
/// hexadecimal characters), or made when the file does not exist yet: 32 random bytes, readable by its user
/// only, created in one step so nobody else can read it in between.
enum URLKeyFile {
    static func loadOrCreate(path: String) throws -> ProxyURLKey {
        let key = ProxyURLKey()
        do {
            try PrivateFile.create(at: path, with: key.data)
            return key
        } catch .exists {
            // Made before: read below.
        } catch .other(let reason) {
            throw CommandFailure(message: "cannot make the URL key file \(path): \(reason)")
        }
        do {
            return try ProxyURLKey(data: try KeyFile.load(path: path))
        } catch let invalid as ArgumentText.Invalid {
            throw CommandFailure(message: "--url-key-file: \(invalid.description)")
        }
    }
}
