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

        /// Parses `"TSV1-ED25519-BLAKE2B; pub; ts; nonce; uid:id; sig"`.
        ///
        /// - Throws: ``CryptoError/Code/invalidFormat`` unless there are exactly six parts, the scheme matches,
        ///   the timestamp is an integer, part five starts with `uid:`, and the key and signature decode.
        public init(parsing authorization: String) throws(CryptoError) {
            let parts = authorization.components(separatedBy: "; ")
            guard parts.count == 6 else { throw .invalidFormat("a TSV1 header has six parts separated by \"; \"") }
            guard parts[0] == TSV1.scheme else { throw .invalidFormat("not a \(TSV1.scheme) header") }
            guard let timestamp = Int64(parts[2]) else { throw .invalidFormat("the TSV1 timestamp is not an integer") }
            guard parts[4].hasPrefix("uid:") else { throw .invalidFormat("the fifth TSV1 part must start with uid:") }
            guard !parts[3].isEmpty else { throw .invalidFormat("the TSV1 nonce is empty") }
            let publicKey: SigningPublicKey
            do {
                publicKey = try SigningPublicKey(base64URLEncoded: parts[1])
            } catch {
                throw .invalidFormat("the TSV1 public key is malformed", underlying: error)
            }
            let signature: Data
            do {
                signature = try Base64URL.decode(parts[5])
            } catch {
                throw .invalidFormat("the TSV1 signature is not base64url", underlying: error)
            }
            guard signature.count == 64 else { throw .invalidFormat("a TSV1 signature is 64 bytes") }
            self.publicKey = publicKey
            self.timestamp = timestamp
            self.nonce = parts[3]
            self.clientID = String(parts[4].dropFirst(4))
            self.signature = signature
            self.signedHeader = parts[0..<5].joined(separator: "; ")
        }
    }
}
