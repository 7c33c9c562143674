import Crypto
import Foundation

/// How the bytes of one 64 KiB block are stored and vouched for.
///
/// Every block's present bytes carry a 32-byte slot: a checksum, or with encryption an AES-GCM nonce and
/// tag. The slot also covers the block's number and the version's salt, so bytes moved to another place or
/// left over from another version of the resource fail as surely as damaged ones.
protocol BlockCodec: Sendable {
    /// Whether the stored form differs from the plain bytes, so that adding bytes to a block rewrites the
    /// ones it already holds.
    var transformsBytes: Bool { get }
    /// The stored form of a block's present bytes (`plain`, in offset order) and the slot vouching for it.
    func seal(_ plain: Data, block: Int64, salt: Data) throws -> (stored: Data, slot: Data)
    /// The plain bytes of `stored`, or `nil` when `slot` does not vouch for them.
    func open(_ stored: Data, slot: Data, block: Int64, salt: Data) -> Data?
    /// A short public value telling which key (if any) sealed the bytes; recorded in the index.
    var keyCheck: String? { get }
}

enum BlockLayout {
    /// The unit of checksums, encryption and eviction.
    static let blockSize: Int64 = 64 * 1024
    /// The bytes of one slot in an entry's `.sums` file.
    static let slotSize = 32

    /// The numbers of the blocks `range` touches.
    static func blocks(in range: Range<Int64>) -> ClosedRange<Int64> {
        (range.lowerBound / blockSize)...((range.upperBound - 1) / blockSize)
    }

    /// The byte range of block `index`.
    static func range(of index: Int64) -> Range<Int64> {
        (index * blockSize)..<((index + 1) * blockSize)
    }

    /// What the slot's checksum or tag also covers: the version's salt, the block number and the length.
    static func context(block: Int64, salt: Data, length: Int) -> Data {
        var context = salt
        withUnsafeBytes(of: block.littleEndian) { context.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(length).littleEndian) { context.append(contentsOf: $0) }
        return context
    }

    /// The salt of one version of a resource: derived from its identity, so every process computes the same
    /// one for the same version and a different one for any other.
    static func salt(key: String, info: ContentInfo) -> Data {
        let identity = "spool-salt\u{0}\(key)\u{0}\(info.length)\u{0}\(info.entityTag ?? "")\u{0}\(info.lastModified ?? "")"
        return Data(SHA256.hash(data: Data(identity.utf8)).prefix(16))
    }
}

/// Plain bytes with a SHA-256 checksum per block.
struct ChecksumCodec: BlockCodec {
    private static let marker: UInt8 = 1

    var transformsBytes: Bool { false }
    var keyCheck: String? { nil }

    func seal(_ plain: Data, block: Int64, salt: Data) throws -> (stored: Data, slot: Data) {
        (plain, Self.slot(for: plain, block: block, salt: salt))
    }

    func open(_ stored: Data, slot: Data, block: Int64, salt: Data) -> Data? {
        slot == Self.slot(for: stored, block: block, salt: salt) ? stored : nil
    }

    private static func slot(for plain: Data, block: Int64, salt: Data) -> Data {
        var hash = SHA256()
        hash.update(data: BlockLayout.context(block: block, salt: salt, length: plain.count))
        hash.update(data: plain)
        return Data([marker]) + Data(hash.finalize().prefix(BlockLayout.slotSize - 1))
    }
}

/// AES-GCM per block with a random nonce for every sealing, so no nonce is ever reused under the key
/// while blocks are extended and sealed again.
struct SealedCodec: BlockCodec {
    private static let marker: UInt8 = 2
    // Kept as bytes: SymmetricKey is not Sendable; making one per call costs a copy of 32 bytes.
    private let keyBytes: Data
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    let keyCheck: String?

    /// A codec for a 32-byte key.
    init(key: Data) throws {
        guard key.count == 32 else { throw SpoolError.storage("the encryption key must be 32 bytes, not \(key.count)") }
        keyBytes = key
        let check = HMAC<SHA256>.authenticationCode(for: Data("spool-key-check-1".utf8), using: SymmetricKey(data: key))
        keyCheck = Data(check).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    var transformsBytes: Bool { true }

    func seal(_ plain: Data, block: Int64, salt: Data) throws -> (stored: Data, slot: Data) {
        let context = BlockLayout.context(block: block, salt: salt, length: plain.count)
        let box = try AES.GCM.seal(plain, using: key, nonce: AES.GCM.Nonce(), authenticating: context)
        var slot = Data([Self.marker])
        slot.append(contentsOf: box.nonce)
        slot.append(box.tag)
        slot.append(Data(count: BlockLayout.slotSize - slot.count))
        return (box.ciphertext, slot)
    }

    func open(_ stored: Data, slot: Data, block: Int64, salt: Data) -> Data? {
        guard slot.count == BlockLayout.slotSize, slot.first == Self.marker,
              let nonce = try? AES.GCM.Nonce(data: slot.dropFirst().prefix(12)),
              let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: stored, tag: slot.dropFirst(13).prefix(16))
        else { return nil }
        let context = BlockLayout.context(block: block, salt: salt, length: stored.count)
        return try? AES.GCM.open(box, using: key, authenticating: context)
    }
}
