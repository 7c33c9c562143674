import Crypto
import Foundation

/// Makes and checks the proof a proxy URL carries: HMAC-SHA-256 with the proxy's `ProxyURLKey` over the kind of
/// path and the origin URL as the path encodes it (base64url of its text), its first 128 bits in base64url
/// (22 characters). Checked on the path's text before anything of it is decoded or parsed.
///
/// The proof is what lets the proxy serve only what its app asked for: a URL naming an origin the proxy never
/// minted, a proof cut short or changed, or one made by another proxy (another launch, another app) does not
/// check. Nothing is stored per URL, so minting costs one hash and URLs never fill memory; the proof names no
/// host or port, so a URL keeps working when the proxy listens again elsewhere (only its address changes).
struct URLSigner: Sendable {
    /// The length of a proof in a path.
    static let proofLength = 22
    /// The key's bytes: `SymmetricKey` is not `Sendable`, so one is made for each hash (a copy of 32 bytes).
    private let key: Data

    init(key: ProxyURLKey) {
        self.key = key.data
    }

    /// The proof for `encoded` (an origin URL's text, base64url-encoded as the path carries it) in a path of
    /// `kind` (`o`, `w` or `k`): a URL minted for one kind does not pass for another.
    func proof(for encoded: Substring, kind: Substring) -> String {
        ProxyURLMapping.base64URL(Array(mac(encoded, kind: kind).prefix(16)))
    }

    /// Whether `proof` is the proof for `encoded` in a path of `kind`, compared in constant time.
    func verifies(_ proof: Substring, for encoded: Substring, kind: Substring) -> Bool {
        ConstantTime.equal(proof.utf8, self.proof(for: encoded, kind: kind).utf8)
    }

    private func mac(_ encoded: Substring, kind: Substring) -> HashedAuthenticationCode<SHA256> {
        // The kind and the URL, separated by a byte neither holds, so that no two pairs hash the same text.
        var message = Array(kind.utf8)
        message.append(0)
        message += encoded.utf8
        return HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
    }
}
