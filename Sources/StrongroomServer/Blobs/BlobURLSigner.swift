// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto

/// Presigned blob URLs: `/v1/storage/blobs/{id}?method=PUT&client=…&expires=…&signature=…`, an HMAC-SHA256 over
/// method, blob ID, the client the URL was made for and expiry, with a key derived from the server's token key
/// (label `"blob-url"`). The download route checks that the client may still read the record.
struct BlobURLSigner: Sendable {
    private let key: HMACSHA256Key
    /// How long a URL is valid, in seconds.
    let lifetime: Int64

    init(tokenKey: SecureBytes, lifetime: Int64) throws {
        let derived = try HKDFSHA256.deriveKey(from: tokenKey, label: "blob-url")
        self.key = HMACSHA256Key(derived)
        self.lifetime = lifetime
    }

    func url(base: String, method: String, id: String, client: String, now: Int64) -> String {
        let expires = now.addingSaturating(lifetime)
        let signature = signature(method, id, client, expires)
        return
            "\(base)/v1/storage/blobs/\(id)?method=\(method)&client=\(client)&expires=\(expires)&signature=\(signature)"
    }

    /// The client a blob request's URL was made for, when it carries a valid, unexpired signature for `method`
    /// and `id`; nil otherwise.
    func client(method: String, id: String, query: [String: String], now: Int64) -> String? {
        guard query["method"] == method, let client = query["client"], client.utf8.count <= 64,
            let expiresText = query["expires"], expiresText.utf8.count <= 20, let expires = Int64(expiresText),
            now <= expires, let signature = query["signature"], signature.utf8.count <= 64,
            // A signature that is not base64url is simply not valid.
            let mac = try? Base64URL.decode(signature)
        else { return nil }
        var message = message(method, id, client, expires)
        let valid = mac.withUnsafeBytes { mac in
            message.withUTF8 { key.isValidAuthenticationCode(mac, authenticating: UnsafeRawBufferPointer($0)) }
        }
        return valid ? client : nil
    }

    private func message(_ method: String, _ id: String, _ client: String, _ expires: Int64) -> String {
        "\(method)\n\(id)\n\(client)\n\(expires)"
    }

    private func signature(_ method: String, _ id: String, _ client: String, _ expires: Int64) -> String {
        Base64URL.encode(key.authenticationCode(for: message(method, id, client, expires)))
    }
}
