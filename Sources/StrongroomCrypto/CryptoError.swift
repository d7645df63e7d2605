// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by `StrongroomCrypto`.
///
/// Compare ``code``s, never messages; two errors are equal when their codes are. No message ever contains key
/// material or plaintext. Whatever failed, no partial plaintext is returned or left on disk.
public struct CryptoError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case invalidKey
            case invalidFormat
            case authenticationFailed
            case invalidSignature
            case truncated
            case unsupportedVersion
            case expired
            case invalidParameters
            case io
            case exists
            case cancelled
            case invalidProof
            case noMatchingIdentity
        }

        private let kind: Kind

        /// A key had the wrong length or encoding, or a signing key's halves did not match.
        public static let invalidKey = Code(kind: .invalidKey)
        /// The input is not in the expected wire format (wrong number of parts, bad base64url, wrong lengths,
        /// trailing data, invalid UTF-8).
        public static let invalidFormat = Code(kind: .invalidFormat)
        /// Authenticated decryption failed: the ciphertext, nonce or tag was changed, or the key is not the one it
        /// was sealed with. The two cannot be told apart, by design.
        public static let authenticationFailed = Code(kind: .authenticationFailed)
        /// A signature did not verify for this message and public key.
        public static let invalidSignature = Code(kind: .invalidSignature)
        /// A stream ended before its final chunk: the file or stream was cut short.
        public static let truncated = Code(kind: .truncated)
        /// The data names a format version this library does not read.
        public static let unsupportedVersion = Code(kind: .unsupportedVersion)
        /// A signed request's timestamp lies outside the accepted window.
        public static let expired = Code(kind: .expired)
        /// Parameters (KDF costs, lengths) were outside the accepted range.
        public static let invalidParameters = Code(kind: .invalidParameters)
        /// Reading or writing a file failed.
        public static let io = Code(kind: .io)
        /// The destination file exists already: nothing was written over it.
        public static let exists = Code(kind: .exists)
        /// The task was cancelled; partial output was removed.
        public static let cancelled = Code(kind: .cancelled)
        /// A Merkle inclusion or consistency proof does not prove what it claims: a hash was changed, the proof is
        /// too short or too long, or the sizes or index do not fit the tree.
        public static let invalidProof = Code(kind: .invalidProof)
        /// None of the recipients a file was encrypted to is one of the identities given: it is not for this key.
        public static let noMatchingIdentity = Code(kind: .noMatchingIdentity)

        public var description: String { "\(kind)" }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }

    /// The task was cancelled.
    public static func cancelled(fileID: String = #fileID, line: Int = #line) -> CryptoError {
        CryptoError(.cancelled, "cancelled", underlying: CancellationError(), fileID: fileID, line: line)
    }
}
