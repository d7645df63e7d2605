// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore

/// Stateless bearer tokens: `sr1.<b64url(clientID|expiry)>.<b64url(HMAC-SHA256)>`. They survive restarts and
/// any instance holding the same key accepts them, so the server keeps no session state.
struct TokenIssuer: Sendable {
    private let key: SymmetricKey

    init(key: SecureBytes) {
        self.key = key.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    func issue(clientID: String, expiresAt: Int64) -> String {
        let payload = Data("\(clientID)|\(expiresAt)".utf8)
        let mac = Data(HMAC<SHA256>.authenticationCode(for: payload, using: key))
        return "sr1.\(Base64URL.encode(payload)).\(Base64URL.encode(mac))"
    }

    /// The client ID of a valid, unexpired token (with `grace` seconds of tolerance), or nil.
    func verify(_ token: String, now: Int64, grace: Int64 = 30) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "sr1",
            let payload = try? Base64URL.decode(parts[1]),  // a malformed token is simply not valid
            let mac = try? Base64URL.decode(parts[2]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload, using: key)
        else { return nil }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "|")
        guard fields.count == 2, let expiry = Int64(fields[1]), now <= expiry.addingSaturating(grace) else {
            return nil
        }
        return String(fields[0])
    }
}
