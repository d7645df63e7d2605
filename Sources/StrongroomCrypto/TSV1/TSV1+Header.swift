// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension TSV1 {
    /// A parsed TSV1 `Authorization` header (not yet verified unless returned by ``TSV1/verify(_:for:now:window:)``).
    public struct Header: Sendable, Hashable {
        /// The signer's Ed25519 public key.
        public let publicKey: SigningPublicKey
        /// Unix time in seconds.
        public let timestamp: Int64
        /// The per-request nonce, for the replay cache.
        public let nonce: String
        /// The client ID after `uid:` exactly as sent (any case), or `""` for anonymous calls.
        public let clientID: String
        /// The 64-byte Ed25519 signature.
        public let signature: Data
        /// The first five parts exactly as received, the string that was hashed.
        public let signedHeader: String

        /// The longest header accepted, in bytes (every official SDK's header is under 250).
        public static let maximumLength = 512
        /// The longest nonce accepted, in bytes (the official SDKs send 36-character UUIDs).
        public static let maximumNonceLength = 64
        /// The longest client ID after `uid:` accepted, in bytes (a UUID is 36).
        public static let maximumClientIDLength = 64

        /// Parses `"TSV1-ED25519-BLAKE2B; pub; ts; nonce; uid:id; sig"`.
        ///
        /// - Throws: ``CryptoError/Code/invalidFormat`` unless the header is at most ``maximumLength`` bytes with
        ///   exactly six parts, the scheme matches, the timestamp is an `Int64`, the nonce is 1 to
        ///   ``maximumNonceLength`` printable ASCII characters, part five starts with `uid:`, and the key and
        ///   signature decode.
        public init(parsing authorization: String) throws(CryptoError) {
            guard authorization.utf8.count <= Self.maximumLength else {
                throw CryptoError(.invalidFormat, "a TSV1 header is at most \(Self.maximumLength) bytes")
            }
            let parts = authorization.components(separatedBy: "; ")
            guard parts.count == 6 else {
                throw CryptoError(.invalidFormat, "a TSV1 header has six parts separated by \"; \"")
            }
            guard parts[0] == TSV1.scheme else { throw CryptoError(.invalidFormat, "not a \(TSV1.scheme) header") }
            guard parts[2].utf8.count <= 20, let timestamp = Int64(parts[2]) else {
                throw CryptoError(.invalidFormat, "the TSV1 timestamp is not an integer")
            }
            guard parts[4].hasPrefix("uid:") else {
                throw CryptoError(.invalidFormat, "the fifth TSV1 part must start with uid:")
            }
            guard parts[4].utf8.count <= 4 + Self.maximumClientIDLength else {
                throw CryptoError(
                    .invalidFormat,
                    "the TSV1 client ID is longer than \(Self.maximumClientIDLength) bytes"
                )
            }
            guard !parts[3].isEmpty, parts[3].utf8.count <= Self.maximumNonceLength,
                parts[3].utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw CryptoError(
                    .invalidFormat,
                    "the TSV1 nonce must be 1 to \(Self.maximumNonceLength) printable ASCII characters"
                )
            }
            let publicKey: SigningPublicKey
            do {
                publicKey = try SigningPublicKey(base64URLEncoded: parts[1])
            } catch {
                throw CryptoError(.invalidFormat, "the TSV1 public key is malformed", underlying: error)
            }
            let signature: Data
            do {
                signature = try Base64URL.decode(parts[5])
            } catch {
                throw CryptoError(.invalidFormat, "the TSV1 signature is not base64url", underlying: error)
            }
            guard signature.count == 64 else { throw CryptoError(.invalidFormat, "a TSV1 signature is 64 bytes") }
            self.publicKey = publicKey
            self.timestamp = timestamp
            self.nonce = parts[3]
            self.clientID = String(parts[4].dropFirst(4))
            self.signature = signature
            self.signedHeader = parts[0..<5].joined(separator: "; ")
        }
    }
}
