// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto

/// Stateless bearer tokens: `sr1.<b64url(clientID|expiry)>.<b64url(HMAC-SHA256)>`. They survive restarts and
/// any instance holding the same key accepts them, so the server keeps no session state.
///
/// Verifying runs on every authenticated request, so it reads the token's bytes in place (no splitting into
/// strings) and uses a key whose HMAC states are prepared once.
struct TokenIssuer: Sendable {
    private let key: HMACSHA256Key

    init(key: SecureBytes) {
        self.key = HMACSHA256Key(key)
    }

    func issue(clientID: String, expiresAt: Int64) -> String {
        let payload = Array("\(clientID)|\(expiresAt)".utf8)
        let mac = payload.withUnsafeBytes { key.authenticationCode(for: $0) }
        return "sr1.\(Base64URL.encode(payload)).\(Base64URL.encode(mac))"
    }

    /// The client ID of a valid, unexpired token (with `grace` seconds of tolerance), or nil.
    func verify(_ token: some StringProtocol, now: Int64, grace: Int64 = 30) -> String? {
        if let answer = token.utf8.withContiguousStorageIfAvailable({ verify(UnsafeRawBufferPointer($0), now, grace) })
        {
            return answer
        }
        var copy = String(token)
        return copy.withUTF8 { verify(UnsafeRawBufferPointer($0), now, grace) }
    }

    private func verify(_ token: UnsafeRawBufferPointer, _ now: Int64, _ grace: Int64) -> String? {
        let dot = UInt8(ascii: ".")
        // `sr1.` then exactly one more dot, between the payload and the MAC.
        guard token.count > 4, token[0] == UInt8(ascii: "s"), token[1] == UInt8(ascii: "r"),
            token[2] == UInt8(ascii: "1"), token[3] == dot,
            let second = token[4...].firstIndex(of: dot), !token[(second + 1)...].contains(dot),
            // A malformed token is simply not valid.
            let payload = try? Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[4..<second])),
            let mac = try? Base64URL.decode(UnsafeRawBufferPointer(rebasing: token[(second + 1)...]))
        else { return nil }
        let authentic = mac.withUnsafeBytes { mac in
            payload.withUnsafeBytes { key.isValidAuthenticationCode(mac, authenticating: $0) }
        }
        guard authentic else { return nil }
        // `clientID|expiry`: exactly one bar, neither side empty.
        let bar = UInt8(ascii: "|")
        guard let split = payload.firstIndex(of: bar), split > payload.startIndex,
            payload.index(after: split) < payload.endIndex, !payload[payload.index(after: split)...].contains(bar),
            let expiry = Int64(String(decoding: payload[payload.index(after: split)...], as: UTF8.self)),
            now <= expiry.addingSaturating(grace)
        else { return nil }
        return String(decoding: payload[..<split], as: UTF8.self)
    }
}
