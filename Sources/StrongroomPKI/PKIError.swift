// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// A PKI failure: a code to match on, and a message that says what was wrong (a chain failure carries the
/// verifier's reason).
public struct PKIError: StrongroomError {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: String {
            case invalidEncoding, invalidParameters, unsupported, badSignature, keyMismatch, wrongPassphrase
            case expired, notYetValid, untrustedIssuer, wrongUsage, revoked, nameMismatch, chainTooLong, tooExpensive
            case exposedKey, exists
        }
        let kind: Kind

        /// The bytes are not the PEM or DER they should be (certificate, CSR, key, PKCS#12).
        public static let invalidEncoding = Code(kind: .invalidEncoding)
        /// An argument is out of range: an RSA size other than 2048/3072/4096, an empty subject, a bad SAN.
        public static let invalidParameters = Code(kind: .invalidParameters)
        /// A key type or algorithm this library does not handle (such as RSA-PSS, or an Ed25519 key in PKCS#12
        /// import).
        public static let unsupported = Code(kind: .unsupported)
        /// A CSR's or certificate's signature does not verify.
        public static let badSignature = Code(kind: .badSignature)
        /// A private key does not belong to the certificate it is paired with.
        public static let keyMismatch = Code(kind: .keyMismatch)
        /// The PKCS#12 passphrase is wrong (or the file's MAC does not verify).
        public static let wrongPassphrase = Code(kind: .wrongPassphrase)
        /// A certificate in the chain expired.
        public static let expired = Code(kind: .expired)
        /// A certificate in the chain is not valid yet.
        public static let notYetValid = Code(kind: .notYetValid)
        /// No chain leads from the leaf to one of the trusted anchors.
        public static let untrustedIssuer = Code(kind: .untrustedIssuer)
        /// The leaf's key usage or extended key usage does not allow the asked purpose.
        public static let wrongUsage = Code(kind: .wrongUsage)
        /// A certificate in the chain is revoked.
        public static let revoked = Code(kind: .revoked)
        /// The leaf does not name the expected host, e-mail address or URI.
        public static let nameMismatch = Code(kind: .nameMismatch)
        /// A chain brings more intermediate certificates than ``ChainValidator/maximumIntermediates``.
        public static let chainTooLong = Code(kind: .chainTooLong)
        /// A file asks for more work than this library does for it (PKCS#12 key-derivation iterations or bags
        /// beyond ``PKCS12/maximumIterations`` and ``PKCS12/maximumBags``).
        public static let tooExpensive = Code(kind: .tooExpensive)
        /// A private key's file can be read by others than its owner, so the key may have leaked and is not used.
        public static let exposedKey = Code(kind: .exposedKey)
        /// What would be created exists already (a CA in a folder that holds one).
        public static let exists = Code(kind: .exists)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }
}
