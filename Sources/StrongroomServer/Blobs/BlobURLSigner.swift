// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto

/// Presigned blob URLs: `/v1/storage/blobs/{id}?method=PUT&expires=…&signature=…`, an HMAC-SHA256 over
/// method, blob ID and expiry with a key derived from the server's token key (label `"blob-url"`).
struct BlobURLSigner: Sendable {
    private let key: SymmetricKey
    let lifetime: Int64

    init(tokenKey: SecureBytes, lifetime: Int64 = 900) throws {
        let derived = try HKDFSHA256.deriveKey(from: tokenKey, label: "blob-url")
        self.key = derived.withUnsafeBytes { SymmetricKey(data: $0) }
        self.lifetime = lifetime
    }

    func url(base: String, method: String, id: String, now: Int64) -> String {
        let expires = now + lifetime
        return
            "\(base)/v1/storage/blobs/\(id)?method=\(method)&expires=\(expires)&signature=\(signature(method, id, expires))"
    }

    /// Whether the query of a blob request carries a valid, unexpired signature for `method` and `id`.
    func isValid(method: String, id: String, query: [String: String], now: Int64) -> Bool {
        guard query["method"] == method, let expiresText = query["expires"], let expires = Int64(expiresText),
            now <= expires, let signature = query["signature"],
            // A signature that is not base64url is simply not valid.
            let mac = try? Base64URL.decode(signature)
        else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            mac,
            authenticating: Data(message(method, id, expires).utf8),
            using: key
        )
    }

    private func message(_ method: String, _ id: String, _ expires: Int64) -> String { "\(method)\n\(id)\n\(expires)" }

    private func signature(_ method: String, _ id: String, _ expires: Int64) -> String {
        Base64URL.encode(
            Data(HMAC<SHA256>.authenticationCode(for: Data(message(method, id, expires).utf8), using: key))
        )
    }
}
