// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// TFSP1 signed fields, as E3DB notes use them (Python `sign_field` / `verify_field`).
///
/// ```
/// message = ascii(b64url(BLAKE2b-256(utf8(salt + key + value))))       the 43-character string is signed
/// signed  = "e7737e7c-1637-511e-8bab-93c4f3e26fd9" ";" salt ";" len(sig) ";" sig value
/// ```
public enum SignedField {
    /// The TFSP1 version tag: UUIDv5 of `"TFSP1;ED25519;BLAKE2B"`.
    public static let signatureVersion = "e7737e7c-1637-511e-8bab-93c4f3e26fd9"

    /// A field whose signature verified.
    public struct Verified: Sendable, Hashable {
        /// The salt the field was signed with (a UUID string).
        public var salt: String
        /// The plaintext value.
        public var value: String

        /// Creates a verified field value.
        public init(salt: String, value: String) {
            self.salt = salt
            self.value = value
        }
    }

    /// Signs `value` under the field name `key` with `salt`.
    public static func sign(key: String, value: String, salt: String, with signingKey: SigningPrivateKey) -> String {
        let signature = Base64URL.encode(
            signingKey.signature(for: Array(message(salt: salt, key: key, value: value).utf8))
        )
        return "\(signatureVersion);\(salt);\(signature.unicodeScalars.count);\(signature)\(value)"
    }

    /// Verifies a signed field and returns its salt and value.
    ///
    /// - Parameters:
    ///   - signed: the TFSP1 text as stored.
    ///   - key: the field's name, which the signature covers.
    ///   - publicKey: the writer's signing key.
    ///   - expectedSalt: when given, the field's salt must equal it (a note's object salt).
    /// - Throws: ``CryptoError/Code/invalidFormat`` when `signed` is not a TFSP1 field (Python treats such a value
    ///   as unsigned plaintext; Strongroom makes the caller decide), ``CryptoError/Code/invalidSignature`` when the
    ///   salt differs from `expectedSalt` or the signature does not verify.
    public static func verify(
        key: String,
        signed: String,
        publicKey: SigningPublicKey,
        expectedSalt: String? = nil
    ) throws(CryptoError) -> Verified {
        let scalars = Array(signed.unicodeScalars)
        let parts = signed.split(separator: ";", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == signatureVersion else {
            throw CryptoError(.invalidFormat, "the value is not a TFSP1 signed field")
        }
        let salt = String(parts[1])
        guard let signatureLength = Int(parts[2]), signatureLength > 0 else {
            throw CryptoError(.invalidFormat, "the TFSP1 signature length is not a number")
        }
        if let expectedSalt, salt != expectedSalt {
            throw CryptoError(.invalidSignature, "the field's salt differs from the object salt")
        }
        let headerLength =
            parts[0].unicodeScalars.count + parts[1].unicodeScalars.count
            + parts[2].unicodeScalars.count + 3
        guard scalars.count >= headerLength + signatureLength else {
            throw CryptoError(.invalidFormat, "the TFSP1 field is shorter than its signature")
        }
        var signatureText = String.UnicodeScalarView()
        signatureText.append(contentsOf: scalars[headerLength..<(headerLength + signatureLength)])
        var valueText = String.UnicodeScalarView()
        valueText.append(contentsOf: scalars[(headerLength + signatureLength)...])
        let value = String(valueText)
        let signature: Data
        do {
            signature = try Base64URL.decode(String(signatureText))
        } catch {
            throw CryptoError(.invalidFormat, "the TFSP1 signature is not base64url", underlying: error)
        }
        guard publicKey.isValidSignature(signature, for: Array(message(salt: salt, key: key, value: value).utf8)) else {
            throw CryptoError(.invalidSignature, "the field signature does not verify")
        }
        return Verified(salt: salt, value: value)
    }

    static func message(salt: String, key: String, value: String) -> String {
        let digest = Array((salt + key + value).utf8).withUnsafeBytes { Sodium.Sign.blake2b256($0) }
        return Base64URL.encode(digest)
    }
}
