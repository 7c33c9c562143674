import Crypto
import Foundation

/// How the bytes of a block are stored and checked.
///
/// Bytes are transformed where they lie (identity, or an AES keystream for their position), so adding
/// bytes to a block never rewrites the ones it holds: a record written before a crash still vouches for
/// exactly the bytes it claims. Each block's present bytes have a 16-byte checksum (XXH64 and the length
/// when plain, HMAC-SHA-256 when encrypted) that also covers the block's number and the version's salt, so
/// bytes moved or left over from another version fail as surely as damaged ones.
protocol BlockCodec: Sendable {
    /// A short public value telling which key (if any) the bytes are stored with; recorded in the index.
    var keyCheck: String? { get }
    /// Whether `transform` returns its input unchanged, so bytes may go between disk and caller as they are.
    var isIdentity: Bool { get }
    /// The stored form of `plain`, which lies at `offset` within block `block`; the same call undoes it.
    func transform(_ plain: Data, block: Int64, offset: Int, salt: Data) throws -> Data
    /// A checksum of block `block` of the version with `salt`, to be fed its present plain bytes in offset order.
    func hasher(block: Int64, salt: Data) -> BlockHasher
}

extension BlockCodec {
    /// The checksum of a block's present plain bytes, concatenated in offset order.
    func checksum(_ plain: Data, block: Int64, salt: Data) -> Data {
        var hasher = hasher(block: block, salt: salt)
        hasher.update(plain)
        return hasher.checksum()
    }
}

/// A block checksum being computed. A copy can be finished while the original takes more bytes, so a block
/// filled a chunk at a time is hashed once, not once per chunk.
struct BlockHasher: @unchecked Sendable {
    // HMAC is a plain value (its state is copied with it); it is not marked Sendable.
    private enum Function {
        case plain(XXH64)
        case keyed(HMAC<SHA256>)
    }

    private var function: Function
    /// The bytes hashed so far.
    private(set) var count: Int64 = 0

    /// A hasher over `prefix` (what a checksum covers besides the bytes: salt and block number): keyed with
    /// `key` (HMAC-SHA-256), or without one a fast hash that detects damage, not tampering.
    init(prefix: Data, key: SymmetricKey?) {
        if let key {
            var mac = HMAC<SHA256>(key: key)
            mac.update(data: prefix)
            function = .keyed(mac)
        } else {
            var hash = XXH64()
            hash.update(prefix)
            function = .plain(hash)
        }
    }

    mutating func update(_ bytes: Data) {
        switch function {
        case .plain(var hash):
            hash.update(bytes)
            function = .plain(hash)
        case .keyed(var mac):
            mac.update(data: bytes)
            function = .keyed(mac)
        }
        count += Int64(bytes.count)
    }

    /// The checksum of the bytes so far; the length comes last, so the same state can take more bytes.
    func checksum() -> Data {
        var length = Data()
        withUnsafeBytes(of: count.littleEndian) { length.append(contentsOf: $0) }
        switch function {
        case .plain(let hash):
            // The 64-bit hash covers the length already; the length itself fills the checksum's other half.
            var checksum = Data()
            withUnsafeBytes(of: hash.digest().littleEndian) { checksum.append(contentsOf: $0) }
            checksum.append(length)
            return checksum
        case .keyed(var mac):
            mac.update(data: length)
            return Data(Data(mac.finalize()).prefix(BlockLayout.checksumSize))
        }
    }
}

enum BlockLayout {
    /// The unit of checksums, encryption and eviction.
    static let blockSize: Int64 = 64 * 1024
    /// The bytes of one checksum.
    static let checksumSize = 16

    /// The numbers of the blocks `range` touches.
    static func blocks(in range: Range<Int64>) -> ClosedRange<Int64> {
        (range.lowerBound / blockSize)...((range.upperBound - 1) / blockSize)
    }

    /// The byte range of block `index` in a resource of `length` bytes.
    static func range(of index: Int64, length: Int64 = .max) -> Range<Int64> {
        (index * blockSize)..<min(length, (index + 1) * blockSize)
    }

    /// What a checksum covers before the bytes: the version's salt and the block number (the length comes
    /// after them).
    static func checksumPrefix(block: Int64, salt: Data) -> Data {
        var prefix = salt
        withUnsafeBytes(of: block.littleEndian) { prefix.append(contentsOf: $0) }
        return prefix
    }

    /// The salt of one version of a resource: derived from its identity, so every process computes the same
    /// one for the same version and a different one for any other.
    static func salt(key: String, info: ContentInfo) -> Data {
        let identity =
            "spool-salt\u{0}\(key)\u{0}\(info.length)\u{0}\(info.entityTag ?? "")\u{0}\(info.lastModified ?? "")"
        return Data(SHA256.hash(data: Data(identity.utf8)).prefix(16))
    }
}

/// Plain bytes with an XXH64 checksum per block.
struct ChecksumCodec: BlockCodec {
    var keyCheck: String? { nil }
    var isIdentity: Bool { true }

    func transform(_ plain: Data, block: Int64, offset: Int, salt: Data) throws -> Data { plain }

    func hasher(block: Int64, salt: Data) -> BlockHasher {
        BlockHasher(prefix: BlockLayout.checksumPrefix(block: block, salt: salt), key: nil)
    }
}

/// AES in counter mode with a keystream per block and version (taken from AES-GCM's encryption of zeros
/// under a nonce derived from the salt and the block number), and HMAC-SHA-256 checksums. A position of
/// one version always holds the same byte, so reusing its keystream there reveals nothing; a new version
/// has a new salt and so new keystreams.
struct SealedCodec: BlockCodec {
    // Kept as bytes: SymmetricKey is not Sendable; making one per call costs a copy of 32 bytes.
    private let keyBytes: Data
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    let keyCheck: String?
    var isIdentity: Bool { false }

    /// A codec for a 32-byte key.
    init(key: Data) throws {
        guard key.count == 32 else { throw SpoolError.storage("the encryption key must be 32 bytes, not \(key.count)") }
        keyBytes = key
        let check = HMAC<SHA256>.authenticationCode(for: Data("spool-key-check-1".utf8), using: SymmetricKey(data: key))
        keyCheck = Data(check).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    func transform(_ plain: Data, block: Int64, offset: Int, salt: Data) throws -> Data {
        var nonceSeed = salt
        withUnsafeBytes(of: block.littleEndian) { nonceSeed.append(contentsOf: $0) }
        let nonce = try AES.GCM.Nonce(data: Data(SHA256.hash(data: nonceSeed).prefix(12)))
        let keystream = try AES.GCM.seal(Data(count: offset + plain.count), using: key, nonce: nonce).ciphertext
        var result = Data(count: plain.count)
        result.withUnsafeMutableBytes { (output: UnsafeMutableRawBufferPointer) in
            plain.withUnsafeBytes { (input: UnsafeRawBufferPointer) in
                keystream.withUnsafeBytes { (stream: UnsafeRawBufferPointer) in
                    let output = output.bindMemory(to: UInt8.self)
                    let input = input.bindMemory(to: UInt8.self)
                    let stream = stream.bindMemory(to: UInt8.self)
                    for index in 0..<output.count { output[index] = input[index] ^ stream[offset + index] }
                }
            }
        }
        return result
    }

    func hasher(block: Int64, salt: Data) -> BlockHasher {
        BlockHasher(prefix: BlockLayout.checksumPrefix(block: block, salt: salt), key: key)
    }
}
