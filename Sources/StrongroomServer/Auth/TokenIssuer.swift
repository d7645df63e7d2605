// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto

/// Stateless bearer tokens: `sr1.<b64url(clientID|expiry|issued)>.<b64url(HMAC-SHA256)>`, `issued` in microseconds
/// (tokens issued before it was added end at the expiry). They survive restarts and any instance holding the same key
/// accepts them, so the server keeps no session state; the issue time lets a key change end every token issued
/// before it (``AuthenticationMiddleware``).
///
/// Verifying runs on every authenticated request, so it reads the token's bytes in place (no splitting into
/// strings) and uses a key whose HMAC states are prepared once.
struct TokenIssuer: Sendable {
    private let key: HMACSHA256Key

    init(key: SecureBytes) {
        self.key = HMACSHA256Key(key)
    }

    func issue(clientID: String, expiresAt: Int64, issuedAt: Int64? = nil) -> String {
        let payload = Array("\(clientID)|\(expiresAt)\(issuedAt.map { "|\($0)" } ?? "")".utf8)
        let mac = payload.withUnsafeBytes { key.authenticationCode(for: $0) }
        return "sr1.\(Base64URL.encode(payload)).\(Base64URL.encode(mac))"
    }

    /// The client ID of a valid, unexpired token (with `grace` seconds of tolerance), or nil.
    func verify(_ token: some StringProtocol, now: Int64, grace: Int64 = 30) -> String? {
        verified(token, now: now, grace: grace)?.clientID
    }

    /// The client ID and issue time (microseconds; nil for a token without one) of a valid, unexpired token.
    func verified(_ token: some StringProtocol, now: Int64, grace: Int64 = 30) -> (clientID: String, issued: Int64?)? {
        if let answer = token.utf8.withContiguousStorageIfAvailable({ verify(UnsafeRawBufferPointer($0), now, grace) })
        {
            return answer
        }
        var copy = String(token)
        return copy.withUTF8 { verify(UnsafeRawBufferPointer($0), now, grace) }
    }

    private func verify(
        _ token: UnsafeRawBufferPointer,
        _ now: Int64,
        _ grace: Int64
    ) -> (clientID: String, issued: Int64?)? {
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
        // `clientID|expiry` or `clientID|expiry|issued`: one or two bars, no part empty.
        let parts = payload.split(separator: UInt8(ascii: "|"), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, !parts[0].isEmpty,
            let expiry = Self.integer(parts[1]), now <= expiry.addingSaturating(grace)
        else { return nil }
        var issued: Int64?
        if parts.count == 3 {
            guard let time = Self.integer(parts[2]) else { return nil }
            issued = time
        }
        return (String(decoding: parts[0], as: UTF8.self), issued)
    }

    /// A decimal integer of at most 19 digits, nothing else around it.
    private static func integer(_ bytes: some Collection<UInt8>) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 19, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(String(decoding: bytes, as: UTF8.self))
    }
}
