import Crypto
import Foundation

/// The secrets of one proxy, made when it is created: what its URLs, its control API and its ping prove.
struct ProxySecrets: Sendable {
    /// Signs and checks the proxy's URLs (`ProxyConfiguration.urlKey`, or a new key).
    let signer: URLSigner
    /// What a caller of the control API sends as `Authorization: Bearer <token>`: 256 random bits, base64url.
    let controlToken: String
    /// Proves this proxy in its answers to the ping: another program that took the port cannot make them.
    private let instanceKey: Data

    /// The header field a ping carries its challenge in, and the one the answer carries the proof in.
    static let challengeField = "X-Spool-Challenge"
    static let proofField = "X-Spool-Proof"
    /// The longest challenge answered; a longer one is ignored (the ping still answers, without a proof).
    static let longestChallenge = 64

    /// New secrets; URLs are signed with `urlKey` when given, else with a new random key.
    init(urlKey: ProxyURLKey?) {
        signer = URLSigner(key: urlKey ?? ProxyURLKey())
        controlToken = ProxyURLMapping.randomBase64URL(byteCount: 32)
        instanceKey = ProxyURLKey().data
    }

    /// What this proxy answers to `challenge`: HMAC-SHA-256 with its instance key, base64url.
    func pingProof(for challenge: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(challenge.utf8), using: SymmetricKey(data: instanceKey))
        return ProxyURLMapping.base64URL(Array(code))
    }

    /// Whether `authorization` (the value of an `Authorization` field) is `Bearer <controlToken>`, the token
    /// compared in constant time.
    func authorizes(_ authorization: String) -> Bool {
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        return ConstantTime.equal(parts[1].trimmingCharacters(in: .whitespaces).utf8, controlToken.utf8)
    }
}
